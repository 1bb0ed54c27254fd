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

# make tiny: agent-tiny, static, for a router.  The rooms of TINYOUT are
# left out, each replaced by its stub of TINYIN (nomcp.c for mcp.c, ...),
# which says the feature is not in this build; to keep one, take its
# pair out of both lists.
TINYOUT = mcp.o task.o export.o md.o rpc.o schema.o record.o line.o \
	scratch.o gauth.o sigv4.o eventstream.o undo.o serve.o tree.o
TINYIN = nomcp.o notask.o noexport.o norpc.o noschema.o norecord.o \
	noline.o noscratch.o nogauth.o nosigv4.o noeventstream.o noundo.o \
	noserve.o notree.o
