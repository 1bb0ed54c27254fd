# agent - a coding agent in C
# See LICENSE file for copyright and license details.
.POSIX:

include config.mk

SRC = agent.c http.c json.c sse.c tools.c util.c
OBJ = agent.o http.o json.o sse.o tools.o util.o
TESTS = test/json test/sse test/http test/tools
TESTPROGS = $(TESTS) test/fake test/httpget
ACFLAGS = $(ACPPFLAGS) $(CPPFLAGS) $(CFLAGS)

all: agent

.c.o:
	$(CC) $(ACFLAGS) -c $< -o $@

config.h:
	cp config.def.h $@

$(OBJ): agent.h config.mk
agent.o: config.h

# Say what to install rather than fail with a compiler error.
http.o: http.c
	@echo '#include <bearssl.h>' | $(CC) $(ACFLAGS) -E -x c - >/dev/null 2>&1 || \
	{ echo 'agent: bearssl.h not found: apt-get install libbearssl-dev' >&2; exit 1; }
	$(CC) $(ACFLAGS) -c http.c -o $@
json.o: json.c
	@echo '#include <jsmn.h>' | $(CC) $(ACFLAGS) -E -x c - >/dev/null 2>&1 || \
	{ echo 'agent: jsmn.h not found: apt-get install libjsmn-dev' >&2; exit 1; }
	$(CC) $(ACFLAGS) -c json.c -o $@

agent: $(OBJ)
	$(CC) -o $@ $(OBJ) $(LDFLAGS) $(LIBS)

test/json: test/json.c test/t.h json.o util.o
	$(CC) $(ACFLAGS) -o $@ test/json.c json.o util.o $(LDFLAGS)
test/sse: test/sse.c test/t.h sse.o util.o
	$(CC) $(ACFLAGS) -o $@ test/sse.c sse.o util.o $(LDFLAGS)
test/http: test/http.c test/t.h http.o util.o
	$(CC) $(ACFLAGS) -o $@ test/http.c http.o util.o $(LDFLAGS) $(LIBS)
test/httpget: test/httpget.c http.o util.o
	$(CC) $(ACFLAGS) -o $@ test/httpget.c http.o util.o $(LDFLAGS) $(LIBS)
test/tools: test/tools.c test/t.h tools.o json.o util.o
	$(CC) $(ACFLAGS) -o $@ test/tools.c tools.o json.o util.o $(LDFLAGS)
test/fake: test/fake.c
	$(CC) $(ACFLAGS) -o $@ test/fake.c $(LDFLAGS)

test: agent $(TESTPROGS)
	sh test/run.sh

demo: agent test/fake
	sh test/demo.sh

# The whole suite under AddressSanitizer and UBSan, in a build of its own.
test-asan:
	rm -rf .asan && mkdir -p .asan/test
	cp $(SRC) agent.h config.mk Makefile .asan/
	cp config.h .asan/ 2>/dev/null || cp config.def.h .asan/config.h
	cp test/*.c test/*.h test/*.sh .asan/test/
	cd .asan && $(MAKE) CC=clang \
	    CFLAGS='-std=c99 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer' \
	    LDFLAGS='-fsanitize=address,undefined' test

clean:
	rm -f agent $(OBJ) $(TESTPROGS) agent-$(VERSION).tar.gz
	rm -rf .asan

dist: clean
	mkdir -p agent-$(VERSION)/test
	cp -R LICENSE Makefile README config.mk config.def.h agent.1 agent.h \
	    $(SRC) agent-$(VERSION)
	cp test/*.c test/*.h test/*.sh agent-$(VERSION)/test
	tar -cf - agent-$(VERSION) | gzip > agent-$(VERSION).tar.gz
	rm -rf agent-$(VERSION)

install: agent
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANPREFIX)/man1
	cp -f agent $(DESTDIR)$(PREFIX)/bin/
	chmod 755 $(DESTDIR)$(PREFIX)/bin/agent
	sed 's/VERSION/$(VERSION)/g' < agent.1 > $(DESTDIR)$(MANPREFIX)/man1/agent.1
	chmod 644 $(DESTDIR)$(MANPREFIX)/man1/agent.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/agent $(DESTDIR)$(MANPREFIX)/man1/agent.1

.PHONY: all demo test test-asan clean dist install uninstall
