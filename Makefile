# agent - a coding agent in C
# See LICENSE file for copyright and license details.
.POSIX:

include config.mk

SRC = agent.c guard.c http.c json.c session.c sse.c tools.c util.c wire.c
OBJ = agent.o guard.o http.o json.o session.o sse.o tools.o util.o wire.o
TESTS = test/json test/sse test/http test/tools test/session test/cut \
	test/wire
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
test/session: test/session.c test/t.h session.o json.o util.o
	$(CC) $(ACFLAGS) -o $@ test/session.c session.o json.o util.o $(LDFLAGS)
test/cut: test/cut.c test/t.h session.o json.o util.o
	$(CC) $(ACFLAGS) -o $@ test/cut.c session.o json.o util.o $(LDFLAGS)
test/wire: test/wire.c test/t.h wire.o sse.o json.o util.o
	$(CC) $(ACFLAGS) -o $@ test/wire.c wire.o sse.o json.o util.o $(LDFLAGS)
test/fake: test/fake.c
	$(CC) $(ACFLAGS) -o $@ test/fake.c $(LDFLAGS)

test: agent $(TESTPROGS)
	sh test/run.sh

demo: agent test/fake
	sh test/demo.sh

bench: agent test/fake test/tools
	sh bench/run.sh

# The whole suite under AddressSanitizer and UBSan; rebuilds everything.
ASANFLAGS = -std=c99 -g -O1 -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
test-asan:
	$(MAKE) clean
	$(MAKE) CC=clang CFLAGS='$(ASANFLAGS)' \
	    LDFLAGS='-fsanitize=address,undefined' test; \
	rc=$$?; $(MAKE) clean; exit $$rc

# Fuzz each parser of outside bytes for FUZZTIME seconds with libFuzzer.
FUZZTIME = 20
FUZZ = test/fuzz_json test/fuzz_sse test/fuzz_http test/fuzz_session \
	test/fuzz_wire
FUZZFLAGS = -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all $(ACPPFLAGS)

test/fuzz_json: test/fuzz_json.c json.c util.c agent.h
	clang $(FUZZFLAGS) -o $@ test/fuzz_json.c json.c util.c
test/fuzz_sse: test/fuzz_sse.c sse.c util.c agent.h
	clang $(FUZZFLAGS) -o $@ test/fuzz_sse.c sse.c util.c
test/fuzz_http: test/fuzz_http.c http.c util.c agent.h
	clang $(FUZZFLAGS) -o $@ test/fuzz_http.c http.c util.c $(LIBS)

test/fuzz_session: test/fuzz_session.c session.c json.c util.c agent.h
	clang $(FUZZFLAGS) -o $@ test/fuzz_session.c session.c json.c util.c
test/fuzz_wire: test/fuzz_wire.c wire.c sse.c json.c util.c agent.h
	clang $(FUZZFLAGS) -o $@ test/fuzz_wire.c wire.c sse.c json.c util.c

fuzz: $(FUZZ)
	for t in json sse http session wire; do \
		mkdir -p .fuzz/$$t && \
		./test/fuzz_$$t -max_total_time=$(FUZZTIME) -max_len=8192 \
		    -print_final_stats=0 .fuzz/$$t test/corpus/$$t \
		    2>.fuzz/$$t.log || { tail -40 .fuzz/$$t.log; exit 1; }; \
		echo "fuzz $$t: $(FUZZTIME) s, no crash"; \
	done

clean:
	rm -f agent $(OBJ) $(TESTPROGS) $(FUZZ) agent-$(VERSION).tar.gz
	rm -rf .fuzz

dist: clean
	mkdir -p agent-$(VERSION)/test agent-$(VERSION)/bench
	cp -R LICENSE Makefile README config.mk config.def.h agent.1 agent.h \
	    $(SRC) agent-$(VERSION)
	cp test/*.c test/*.h test/*.sh agent-$(VERSION)/test
	cp -R test/corpus test/data agent-$(VERSION)/test
	cp bench/*.c bench/*.sh agent-$(VERSION)/bench
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

.PHONY: all bench demo fuzz test test-asan clean dist install uninstall
