# agent version
VERSION = 0.1

# paths
PREFIX = /usr/local
MANPREFIX = $(PREFIX)/share/man

# flags: CFLAGS and LDFLAGS are the packager's; ACPPFLAGS is always used
ACPPFLAGS = -D_POSIX_C_SOURCE=200809L -DVERSION=\"$(VERSION)\"
CFLAGS = -std=c99 -pedantic -Wall -Wextra -Os
LDFLAGS =
LIBS = -lbearssl

CC = cc
# the compiler of programs the build runs (cagen), cross builds included
HOSTCC = cc

# trust anchors compiled in: a PEM file, used when no CA bundle is found
CAFILE =
