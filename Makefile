# agent - a coding agent in C
# See LICENSE file for copyright and license details.
.POSIX:

include config.mk

# the wires: wire.c what they share, each wire in its own file
WIRESRC = wire.c openai.c anthropic.c responses.c gemini.c
WIREOBJ = wire.o openai.o anthropic.o responses.o gemini.o
# the tools and the rooms below them (diff.c names blobs by BearSSL's SHA-1:
# whatever links them takes $(LIBS))
TOOLSRC = tools.c search.c proc.c edit.c diff.c file.c gitguard.c regex.c \
	sandbox.c walk.c undo.c
TOOLOBJ = tools.o search.o proc.o edit.o diff.o file.o gitguard.o regex.o \
	sandbox.o walk.o undo.o
HDR = agent.h anthropic.h ask.h budget.h call.h context.h diff.h edit.h \
	entry.h events.h export.h file.h gauth.h gemini.h gitguard.h guard.h \
	http.h json.h line.h mcp.h md.h openai.h proc.h prompt.h record.h \
	regex.h responses.h rpc.h sandbox.h schema.h scratch.h search.h \
	sessdir.h session.h shsplit.h sse.h task.h tls.h tools.h tree.h \
	undo.h util.h walk.h wire.h eventstream.h sigv4.h fmt.h
SRC = agent.c ask.c budget.c call.c chat.c context.c diff.c edit.c entry.c \
	events.c export.c file.c gauth.c gitguard.c guard.c http.c json.c \
	line.c mcp.c md.c proc.c prompt.c record.c regex.c rpc.c sandbox.c \
	schema.c scratch.c search.c serve.c sessdir.c session.c shsplit.c \
	sse.c task.c tls.c tools.c tree.c undo.c util.c walk.c eventstream.c \
	sigv4.c $(WIRESRC)
OBJ = agent.o ask.o budget.o call.o chat.o context.o diff.o edit.o entry.o \
	events.o export.o file.o gauth.o gitguard.o guard.o http.o json.o \
	line.o mcp.o md.o proc.o prompt.o record.o regex.o rpc.o sandbox.o \
	schema.o scratch.o search.o serve.o sessdir.o session.o shsplit.o \
	sse.o task.o tls.o tools.o tree.o undo.o util.o walk.o eventstream.o \
	sigv4.o $(WIREOBJ)
# the stubs that stand in for rooms in make tiny (config.mk's TINYIN)
STUBSRC = nomcp.c notask.c noexport.c norpc.c noschema.c norecord.c \
	noline.c noscratch.c nogauth.c nosigv4.c noeventstream.c noundo.c \
	noserve.c notree.c
STUBOBJ = nomcp.o notask.o noexport.o norpc.o noschema.o norecord.o \
	noline.o noscratch.o nogauth.o nosigv4.o noeventstream.o noundo.o \
	noserve.o notree.o
TESTS = test/json test/sse test/http test/tools test/session test/cut \
	test/wire test/regex test/responses test/guard test/schema test/diff \
	test/eventstream test/sigv4 test/fmt test/qsort test/strtol
TESTPROGS = $(TESTS) test/fake test/httpget test/relay test/mcpsrv \
	test/pty test/agent-ca test/oldkernel test/maxrss
ACFLAGS = $(ACPPFLAGS) $(CPPFLAGS) $(CFLAGS)

all: agent

.c.o:
	$(CC) $(ACFLAGS) -c $< -o $@

config.h:
	cp config.def.h $@

# Each object and the headers it includes: its arrows (DESIGN.md).
$(OBJ) $(STUBOBJ): config.mk
nomcp.o: nomcp.c util.h json.h sse.h http.h tools.h proc.h mcp.h
notask.o: notask.c util.h json.h http.h wire.h tools.h proc.h entry.h \
	session.h events.h guard.h task.h
noexport.o: noexport.c util.h json.h entry.h session.h export.h
norpc.o: norpc.c util.h json.h wire.h entry.h session.h tools.h gitguard.h \
	rpc.h
noschema.o: noschema.c util.h json.h regex.h schema.h
norecord.o: norecord.c util.h json.h http.h record.h
noline.o: noline.c util.h line.h
noscratch.o: noscratch.c util.h scratch.h
nogauth.o: nogauth.c util.h json.h http.h gauth.h
nosigv4.o: nosigv4.c util.h sigv4.h
noeventstream.o: noeventstream.c util.h eventstream.h
noundo.o: noundo.c util.h undo.h
notree.o: notree.c util.h json.h entry.h session.h tree.h
noserve.o: noserve.c util.h json.h sse.h eventstream.h sigv4.h http.h \
	record.h gauth.h wire.h entry.h session.h sessdir.h tree.h tools.h \
	undo.h sandbox.h proc.h gitguard.h guard.h events.h ask.h context.h \
	rpc.h export.h prompt.h mcp.h call.h task.h budget.h schema.h agent.h
# the static builds' printf (fortify.c gives it the C library's names)
fmt.o: fmt.c fmt.h
fortify.o: fortify.c fmt.h
agent.o: agent.c util.h json.h sse.h eventstream.h sigv4.h http.h record.h \
	gauth.h wire.h entry.h session.h sessdir.h tools.h search.h undo.h \
	sandbox.h proc.h gitguard.h guard.h events.h ask.h context.h rpc.h \
	export.h prompt.h mcp.h call.h task.h budget.h schema.h scratch.h \
	agent.h config.h
anthropic.o: anthropic.c util.h json.h wire.h anthropic.h
ask.o: ask.c util.h json.h sse.h eventstream.h sigv4.h http.h record.h gauth.h \
	wire.h events.h ask.h
budget.o: budget.c util.h json.h entry.h budget.h
call.o: call.c util.h json.h wire.h entry.h tools.h sandbox.h gitguard.h \
	guard.h events.h mcp.h task.h line.h call.h
chat.o: chat.c util.h json.h sse.h eventstream.h sigv4.h http.h record.h \
	gauth.h wire.h entry.h session.h tree.h tools.h undo.h sandbox.h \
	proc.h gitguard.h guard.h events.h ask.h context.h rpc.h prompt.h \
	mcp.h call.h task.h budget.h schema.h line.h agent.h
context.o: context.c util.h json.h wire.h entry.h session.h tree.h context.h
diff.o: diff.c util.h diff.h
edit.o: edit.c util.h edit.h
entry.o: entry.c util.h json.h entry.h
events.o: events.c util.h json.h wire.h events.h
eventstream.o: eventstream.c util.h eventstream.h
export.o: export.c util.h json.h entry.h session.h file.h diff.h md.h \
	export.h
file.o: file.c util.h file.h
gauth.o: gauth.c util.h json.h http.h gauth.h
gemini.o: gemini.c util.h json.h wire.h gemini.h
gitguard.o: gitguard.c util.h gitguard.h
guard.o: guard.c util.h json.h tools.h sandbox.h proc.h gitguard.h \
	shsplit.h guard.h
http.o: http.c util.h tls.h http.h
json.o: json.c util.h json.h
line.o: line.c util.h line.h
mcp.o: mcp.c util.h json.h sse.h http.h tools.h proc.h mcp.h
md.o: md.c util.h md.h
openai.o: openai.c util.h json.h wire.h openai.h
proc.o: proc.c util.h sandbox.h proc.h
prompt.o: prompt.c util.h json.h tools.h prompt.h
record.o: record.c util.h json.h http.h record.h
regex.o: regex.c util.h regex.h
responses.o: responses.c util.h json.h wire.h responses.h
rpc.o: rpc.c util.h json.h wire.h entry.h session.h tools.h proc.h \
	gitguard.h rpc.h
sandbox.o: sandbox.c util.h sandbox.h
schema.o: schema.c util.h json.h regex.h schema.h
scratch.o: scratch.c util.h walk.h diff.h scratch.h
serve.o: serve.c util.h json.h sse.h eventstream.h sigv4.h http.h record.h \
	gauth.h wire.h entry.h session.h sessdir.h tree.h tools.h undo.h \
	sandbox.h proc.h gitguard.h guard.h events.h ask.h context.h rpc.h \
	export.h prompt.h mcp.h call.h task.h budget.h schema.h agent.h
sessdir.o: sessdir.c util.h json.h entry.h session.h sessdir.h
session.o: session.c util.h json.h entry.h session.h
shsplit.o: shsplit.c util.h shsplit.h
sse.o: sse.c util.h sse.h
task.o: task.c util.h json.h http.h wire.h tools.h proc.h entry.h session.h events.h \
	guard.h task.h
tls.o: tls.c util.h tls.h config.h ca.h
tree.o: tree.c util.h json.h entry.h session.h tree.h
tools.o: tools.c util.h json.h tools.h sandbox.h proc.h gitguard.h edit.h \
	diff.h file.h undo.h
search.o: search.c util.h json.h tools.h proc.h walk.h regex.h file.h \
	search.h
undo.o: undo.c util.h sandbox.h file.h undo.h
util.o: util.c util.h
walk.o: walk.c util.h walk.h
sigv4.o: sigv4.c util.h sigv4.h
wire.o: wire.c util.h json.h wire.h openai.h anthropic.h responses.h \
	gemini.h

# Say what to install rather than fail with a compiler error.
tls.o: tls.c
	@echo '#include <bearssl.h>' | $(CC) $(ACFLAGS) -E -x c - >/dev/null 2>&1 || \
	{ echo 'agent: bearssl.h not found: apt-get install libbearssl-dev' >&2; exit 1; }
	$(CC) $(ACFLAGS) -c tls.c -o $@
json.o: json.c
	@echo '#include <jsmn.h>' | $(CC) $(ACFLAGS) -E -x c - >/dev/null 2>&1 || \
	{ echo 'agent: jsmn.h not found: apt-get install libjsmn-dev' >&2; exit 1; }
	$(CC) $(ACFLAGS) -c json.c -o $@

agent: $(OBJ)
	$(CC) -o $@ $(OBJ) $(LDFLAGS) $(LIBS)

# agent without config.mk's TINYOUT, their stubs (TINYIN) in their place
agent-tiny: $(OBJ) $(TINYIN)
	o=; for f in $(OBJ); do case " $(TINYOUT) " in *" $$f "*) ;; \
	    *) o="$$o $$f" ;; esac; done; \
	$(CC) -o $@ $$o $(TINYIN) $(LDFLAGS) $(LIBS)

# The trust anchors compiled in (make CAFILE=bundle.pem, for a machine
# with no CA bundle): ca.h, made by cagen, a program of the build's own
# machine (HOSTCC), at each build and replaced only when it changes, so
# that another CAFILE is seen and the same one rebuilds nothing.
cagen: cagen.c
	$(HOSTCC) -o $@ cagen.c
ca.h: cagen FORCE
	@./cagen $(CAFILE) >ca.h.tmp && { cmp -s ca.h.tmp ca.h || \
	    mv ca.h.tmp ca.h; }; rc=$$?; rm -f ca.h.tmp; exit $$rc
FORCE:

test/json: test/json.c test/t.h json.o util.o
	$(CC) $(ACFLAGS) -o $@ test/json.c json.o util.o $(LDFLAGS)
test/sse: test/sse.c test/t.h sse.o util.o
	$(CC) $(ACFLAGS) -o $@ test/sse.c sse.o util.o $(LDFLAGS)
test/eventstream: test/eventstream.c test/t.h eventstream.o util.o
	$(CC) $(ACFLAGS) -o $@ test/eventstream.c eventstream.o util.o \
	    $(LDFLAGS)
test/sigv4: test/sigv4.c test/t.h sigv4.o util.o
	$(CC) $(ACFLAGS) -o $@ test/sigv4.c sigv4.o util.o $(LDFLAGS) $(LIBS)
test/http: test/http.c test/t.h http.o tls.o util.o
	$(CC) $(ACFLAGS) -o $@ test/http.c http.o tls.o util.o $(LDFLAGS) \
	    $(LIBS)
test/httpget: test/httpget.c http.o tls.o util.o
	$(CC) $(ACFLAGS) -o $@ test/httpget.c http.o tls.o util.o $(LDFLAGS) \
	    $(LIBS)
test/tools: test/tools.c test/t.h $(TOOLOBJ) json.o util.o
	$(CC) $(ACFLAGS) -o $@ test/tools.c $(TOOLOBJ) json.o util.o \
	    $(LDFLAGS) $(LIBS)
test/guard: test/guard.c test/t.h guard.o shsplit.o $(TOOLOBJ) json.o util.o
	$(CC) $(ACFLAGS) -o $@ test/guard.c guard.o shsplit.o $(TOOLOBJ) json.o \
	    util.o $(LDFLAGS) $(LIBS)
test/schema: test/schema.c test/t.h schema.o regex.o json.o util.o
	$(CC) $(ACFLAGS) -o $@ test/schema.c schema.o regex.o json.o util.o \
	    $(LDFLAGS)
test/diff: test/diff.c test/t.h test/patch.h diff.o util.o
	$(CC) $(ACFLAGS) -o $@ test/diff.c diff.o util.o $(LDFLAGS) $(LIBS)
test/fmt: test/fmt.c test/t.h fmt.o
	$(CC) $(ACFLAGS) -o $@ test/fmt.c fmt.o $(LDFLAGS)
# fortify.c in place of the C library's qsort (and printf: fmt.o)
test/qsort: test/qsort.c test/t.h fortify.o fmt.o
	$(CC) $(ACFLAGS) -o $@ test/qsort.c fortify.o fmt.o $(LDFLAGS)
# and its strtol family
test/strtol: test/strtol.c test/t.h fortify.o fmt.o
	$(CC) $(ACFLAGS) -o $@ test/strtol.c fortify.o fmt.o $(LDFLAGS)
test/regex: test/regex.c test/t.h regex.o util.o
	$(CC) $(ACFLAGS) -o $@ test/regex.c regex.o util.o $(LDFLAGS)
test/session: test/session.c test/t.h session.o sessdir.o tree.o entry.o \
	json.o util.o
	$(CC) $(ACFLAGS) -o $@ test/session.c session.o sessdir.o tree.o \
	    entry.o json.o util.o $(LDFLAGS)
test/cut: test/cut.c test/t.h session.o entry.o json.o util.o
	$(CC) $(ACFLAGS) -o $@ test/cut.c session.o entry.o json.o util.o \
	    $(LDFLAGS)
test/wire: test/wire.c test/t.h $(WIREOBJ) sse.o json.o util.o
	$(CC) $(ACFLAGS) -o $@ test/wire.c $(WIREOBJ) sse.o json.o util.o \
	    $(LDFLAGS)
test/responses: test/responses.c test/t.h $(WIREOBJ) sse.o json.o util.o
	$(CC) $(ACFLAGS) -o $@ test/responses.c $(WIREOBJ) sse.o json.o \
	    util.o $(LDFLAGS)
test/relay: test/relay.c
	$(CC) $(ACFLAGS) -o $@ test/relay.c $(LDFLAGS)
test/mcpsrv: test/mcpsrv.c
	$(CC) $(ACFLAGS) -o $@ test/mcpsrv.c $(LDFLAGS)
test/fake: test/fake.c
	$(CC) $(ACFLAGS) -o $@ test/fake.c $(LDFLAGS)
test/pty: test/pty.c
	$(CC) $(ACFLAGS) -o $@ test/pty.c $(LDFLAGS)
test/oldkernel: test/oldkernel.c
	$(CC) $(ACFLAGS) -o $@ test/oldkernel.c $(LDFLAGS)
test/maxrss: test/maxrss.c
	$(CC) $(ACFLAGS) -o $@ test/maxrss.c $(LDFLAGS)
# agent with test/data/anchor.pem compiled in (test/anchors.sh): its tls.c
# built apart, in test/ca with that ca.h
test/agent-ca: $(OBJ) cagen test/data/anchor.pem
	rm -rf test/ca && mkdir test/ca
	cp tls.c tls.h util.h config.h test/ca
	./cagen test/data/anchor.pem >test/ca/ca.h 2>/dev/null
	$(CC) $(ACFLAGS) -c test/ca/tls.c -o test/ca/tls.o
	$(CC) -o $@ $(OBJ:tls.o=test/ca/tls.o) $(LDFLAGS) $(LIBS)

# agent-tiny too: a room's new entry point that its stub lacks fails here
test: agent agent-tiny $(TESTPROGS)
	sh test/run.sh $(TESTS)

demo: agent test/fake
	sh test/demo.sh

bench: agent test/fake test/tools
	sh bench/run.sh

# The whole suite under AddressSanitizer and UBSan, built in a copy of
# the sources under asan/, so that the user's own build stays.
ASANFLAGS = -std=c99 -g -O1 -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
test-asan: config.h
	rm -rf asan && mkdir -p asan/test
	cp -p $(SRC) $(STUBSRC) *.h config.mk Makefile fortify.c fmt.c cagen.c asan
	cp -p test/*.c test/*.h test/*.sh asan/test
	cp -R test/corpus test/data asan/test
	cd asan && $(MAKE) CC=clang CFLAGS='$(ASANFLAGS)' \
	    LDFLAGS='-fsanitize=address,undefined' test

# Fuzz each parser of outside bytes for FUZZTIME seconds with libFuzzer.
FUZZTIME = 20
FUZZ = test/fuzz_json test/fuzz_sse test/fuzz_http test/fuzz_session \
	test/fuzz_wire test/fuzz_rpc test/fuzz_cert test/fuzz_regex \
	test/fuzz_responses test/fuzz_guard test/fuzz_export test/fuzz_mcp \
	test/fuzz_schema test/fuzz_diff test/fuzz_mcphttp test/fuzz_eventstream \
	test/fuzz_gauth test/fuzz_cagen test/fuzz_strtol test/fuzz_gitindex
FUZZFLAGS = -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all $(ACPPFLAGS)

test/fuzz_json: test/fuzz_json.c json.c util.c $(HDR)
	clang $(FUZZFLAGS) -o $@ test/fuzz_json.c json.c util.c
test/fuzz_sse: test/fuzz_sse.c sse.c util.c $(HDR)
	clang $(FUZZFLAGS) -o $@ test/fuzz_sse.c sse.c util.c
test/fuzz_eventstream: test/fuzz_eventstream.c eventstream.c util.c $(HDR)
	clang $(FUZZFLAGS) -o $@ test/fuzz_eventstream.c eventstream.c util.c
test/fuzz_http: test/fuzz_http.c http.c tls.c util.c $(HDR) config.h ca.h
	clang $(FUZZFLAGS) -o $@ test/fuzz_http.c http.c tls.c util.c $(LIBS)
# the index reader is static in gitguard.c: the target includes it
test/fuzz_gitindex: test/fuzz_gitindex.c gitguard.c util.c $(HDR)
	clang $(FUZZFLAGS) -o $@ test/fuzz_gitindex.c util.c
# the certificate reader is static in tls.c: the target includes it
test/fuzz_cert: test/fuzz_cert.c tls.c util.c $(HDR) config.h ca.h
	clang $(FUZZFLAGS) -o $@ test/fuzz_cert.c util.c $(LIBS)

test/fuzz_session: test/fuzz_session.c session.c tree.c entry.c json.c \
	util.c $(HDR)
	clang $(FUZZFLAGS) -DREADBLOCK=8 -o $@ test/fuzz_session.c \
	    session.c tree.c entry.c json.c util.c
test/fuzz_wire: test/fuzz_wire.c $(WIRESRC) sse.c json.c util.c $(HDR)
	clang $(FUZZFLAGS) -o $@ test/fuzz_wire.c $(WIRESRC) sse.c json.c \
	    util.c
test/fuzz_responses: test/fuzz_responses.c $(WIRESRC) sse.c json.c util.c \
	$(HDR)
	clang $(FUZZFLAGS) -o $@ test/fuzz_responses.c $(WIRESRC) sse.c \
	    json.c util.c
# rpc.c runs the user's bash command: tools.c and what it needs come along
test/fuzz_rpc: test/fuzz_rpc.c rpc.c session.c entry.c $(TOOLSRC) \
	$(WIRESRC) sse.c json.c util.c $(HDR)
	clang $(FUZZFLAGS) -o $@ test/fuzz_rpc.c rpc.c session.c entry.c \
	    $(TOOLSRC) $(WIRESRC) sse.c json.c util.c $(LIBS)
# export.c writes its page through file.c, its diffs by diff.c
test/fuzz_export: test/fuzz_export.c export.c md.c diff.c session.c \
	entry.c file.c json.c util.c $(HDR)
	clang $(FUZZFLAGS) -o $@ test/fuzz_export.c export.c md.c diff.c \
	    session.c entry.c file.c json.c util.c $(LIBS)
test/fuzz_schema: test/fuzz_schema.c schema.c regex.c json.c util.c $(HDR)
	clang $(FUZZFLAGS) -o $@ test/fuzz_schema.c schema.c regex.c json.c \
	    util.c
# diff.c names a binary file's blobs by SHA-1: BearSSL's
test/fuzz_diff: test/fuzz_diff.c test/patch.h diff.c util.c $(HDR)
	clang $(FUZZFLAGS) -o $@ test/fuzz_diff.c diff.c util.c $(LIBS)
# cagen reads the build's CAFILE: its PEM reader
test/fuzz_cagen: test/fuzz_cagen.c cagen.c
	clang $(FUZZFLAGS) -o $@ test/fuzz_cagen.c
# fortify.c's printf (fmt.c) is libFuzzer's too
test/fuzz_strtol: test/fuzz_strtol.c fortify.c fmt.c fmt.h
	clang $(FUZZFLAGS) -o $@ test/fuzz_strtol.c fortify.c fmt.c
test/fuzz_regex: test/fuzz_regex.c regex.c util.c $(HDR)
	clang $(FUZZFLAGS) -o $@ test/fuzz_regex.c regex.c util.c
test/fuzz_guard: test/fuzz_guard.c shsplit.c util.c $(HDR)
	clang $(FUZZFLAGS) -o $@ test/fuzz_guard.c shsplit.c util.c

# mcp.c starts servers (proc.c) and speaks HTTP: they come along
test/fuzz_mcp: test/fuzz_mcp.c mcp.c http.c tls.c sse.c $(TOOLSRC) json.c \
	util.c $(HDR) config.h ca.h
	clang $(FUZZFLAGS) -o $@ test/fuzz_mcp.c mcp.c http.c tls.c sse.c \
	    $(TOOLSRC) json.c util.c $(LIBS)
test/fuzz_mcphttp: test/fuzz_mcphttp.c mcp.c http.c tls.c sse.c \
	$(TOOLSRC) json.c util.c $(HDR) config.h ca.h
	clang $(FUZZFLAGS) -o $@ test/fuzz_mcphttp.c mcp.c http.c tls.c \
	    sse.c $(TOOLSRC) json.c util.c $(LIBS)

# gauth.c asks the token endpoint (http.c): it comes along, unused
test/fuzz_gauth: test/fuzz_gauth.c gauth.c http.c tls.c json.c util.c \
	$(HDR) config.h
	clang $(FUZZFLAGS) -o $@ test/fuzz_gauth.c gauth.c http.c tls.c \
	    json.c util.c $(LIBS)

fuzz: $(FUZZ)
	for f in $(FUZZ); do t=$${f#test/fuzz_}; \
		mkdir -p .fuzz/$$t && \
		./test/fuzz_$$t -max_total_time=$(FUZZTIME) -max_len=8192 \
		    -print_final_stats=0 .fuzz/$$t test/corpus/$$t \
		    2>.fuzz/$$t.log || { tail -40 .fuzz/$$t.log; exit 1; }; \
		echo "fuzz $$t: $(FUZZTIME) s, no crash"; \
	done

# Static builds with musl, made in a copy of the sources under cross/ARCH
# by these same rules, so that native objects are left alone:
#   make static                   agent-static, for this machine, or
#                                 for ARCH=... as make cross builds it
#   make tiny                     agent-tiny, the same without config.mk's
#                                 TINYOUT rooms
#   make cross ARCH=aarch64       cross/aarch64/agent (armhf: 32-bit,
#                                 s390x: big-endian, riscv64, x86_64 too)
#   make test-cross ARCH=aarch64  the whole suite against cross/aarch64's
#                                 programs, run through qemu-user
# musl, not glibc: a static glibc still loads its NSS modules to look up
# a host name.  Debian's cross compilers take musl through the specs file
# of musl-dev:ARCH, as musl-gcc does.  The BearSSL is Debian's
# libbearssl.a, built for glibc with _FORTIFY_SOURCE: fortify.c supplies
# the three checked copies it calls, rather than a build of BearSSL from
# its source package here (a download, its own build system, a minute
# more each time) for three small functions.  fortify.c also gives the
# static builds fmt.c's printf and a heapsort for qsort, by the C
# library's names, so that musl's (12.7 KB, its printf's long double
# arithmetic most of it) are not linked: 8.7 and 1.9 KB less; test/fmt
# and test/qsort check them natively.  The binaries are linked again
# each time: the strip after the link leaves them newer than their
# objects, and fortify.o is none of their prerequisites.  Debian 12 has
# no riscv64 packages (no libbearssl-dev:riscv64, no musl-dev:riscv64):
# that ARCH says so and stops, and builds where they exist, as on
# Debian 13.
ARCH =
CROSSGOALS = agent
HOSTINC = /usr/include
# Size: -Oz (gcc 12 and later), no position-independent code (a static
# binary is not moved), unused functions dropped, no unwind tables (C
# does not unwind: BearSSL's are taken out of a copy of its library
# before the link, where stripping them after would leave a hole;
# -fno-unwind-tables as well, for aarch64's gcc makes them without it:
# 25 KB there), the whole program optimised as one at the link (-flto,
# the compiler's flags given to the link too, as gcc asks; one partition,
# the smallest, and no note on stderr about the partitions compiled one
# after another: 1.6 KB of code on x86_64, 6 KB on aarch64), a switch
# as a chain of compares rather than a table of addresses
# (-fno-jump-tables: 0.7 KB on x86_64, 56 bytes more on aarch64), no
# extra passes that -Oz leaves on and that grow its code here
# (-fno-expensive-optimizations: 1 KB on x86_64, 0.8 KB on aarch64), one
# segment for code and constants rather than two padded to a page each,
# the data's segment right after them in the file rather than at the
# next page boundary (-z common-page-size=64: ld's choice of the page for
# it, to save a page of memory, padded the file with up to a page, 4 KB
# on x86_64 and 64 KB on aarch64, as the code's end fell), and no RELRO
# page: musl applies RELRO only in its dynamic linker, so in a static
# binary it was padding alone.  musl's libc.a starts each function on
# 16 bytes, for a speed agent does not need: the link takes a copy of it
# (lib/libc.a) whose functions are packed as close as the instruction
# set allows, 1 byte on x86_64 and 4 elsewhere (2 KB on x86_64, 1.7 KB
# on aarch64; objcopy's --set-section-alignment is binutils 2.34's and
# later).  The strip after the link takes out the
# unwind tables left (crt's and libgcc's) and the compilers' names in
# .comment, which -s keeps (140 bytes).
STATICCFLAGS = -Oz -fno-pie -ffunction-sections -fdata-sections \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -flto \
	-fno-jump-tables -fno-expensive-optimizations
STATICLDFLAGS = -static -no-pie -s -flto-partition=one -Wl,--gc-sections \
	-Wl,-z,noseparate-code -Wl,-z,common-page-size=64 -Wl,-z,norelro
# ARCH to the GNU and musl triplets, Debian's name and the emulator;
# the least alignment of a function its instruction set takes.
CROSSARCH = A='$(ARCH)'; [ -n "$$A" ] || { A=$$(uname -m); \
	case $$A in arm*) A=armhf ;; esac; }; \
	case $$A in \
	x86_64) t=x86_64-linux-gnu m=x86_64-linux-musl d=amd64 \
	    q=qemu-x86_64-static ;; \
	aarch64) t=aarch64-linux-gnu m=aarch64-linux-musl d=arm64 \
	    q=qemu-aarch64-static ;; \
	armhf) t=arm-linux-gnueabihf m=arm-linux-musleabihf d=armhf \
	    q=qemu-arm-static ;; \
	riscv64) t=riscv64-linux-gnu m=riscv64-linux-musl d=riscv64 \
	    q=qemu-riscv64-static ;; \
	s390x) t=s390x-linux-gnu m=s390x-linux-musl d=s390x \
	    q=qemu-s390x-static ;; \
	*) echo "agent: ARCH=$(ARCH): x86_64, aarch64, armhf, s390x or" \
	    "riscv64" >&2; \
	    exit 1 ;; \
	esac; \
	n=; [ $$A != riscv64 ] || n=' (Debian 12 has none for riscv64)'; \
	a=4; [ $$A != x86_64 ] || a=1
# SMALL: config.h's smaller choices where it has two (the TLS curves').
CROSSMAKE = $(MAKE) CC="$$xcc" CPPFLAGS='$(CPPFLAGS) -Iinclude -DSMALL' \
	CFLAGS='$(CFLAGS) $(STATICCFLAGS)' \
	LDFLAGS='-Llib $(LDFLAGS) $(STATICCFLAGS) $(STATICLDFLAGS)' \
	LIBS="fortify.o fmt.o $$lib" CAFILE="$$c"

cross: config.h
	@$(CROSSARCH); \
	command -v $$t-gcc >/dev/null || { \
	    echo "agent: no $$t-gcc: apt-get install gcc-$$t" >&2; exit 1; }; \
	xcc="$$t-gcc -specs /usr/lib/$$m/musl-gcc.specs"; \
	[ -f /usr/lib/$$m/musl-gcc.specs ] || { echo "agent: no musl for" \
	    "$$A: apt-get install musl-dev:$$d$$n" >&2; exit 1; }; \
	lib=$$($$t-gcc -print-file-name=libbearssl.a); \
	case $$lib in /*) [ -f "$$lib" ] ;; *) false ;; esac || { echo \
	    "agent: no BearSSL for $$A: apt-get install" \
	    "libbearssl-dev:$$d$$n" >&2; exit 1; }; \
	b=cross/$$A; \
	mkdir -p $$b/test && rm -rf $$b/include && mkdir $$b/include && \
	$$t-objcopy -R .eh_frame "$$lib" $$b/bearssl.a && lib=bearssl.a && \
	rm -rf $$b/lib && mkdir $$b/lib && $$t-objcopy \
	    --set-section-alignment ".text*=$$a" /usr/lib/$$m/libc.a \
	    $$b/lib/libc.a && \
	ln -s $(HOSTINC)/bearssl* $(HOSTINC)/jsmn.h $$b/include && \
	cp -p $(SRC) $(STUBSRC) *.h config.mk Makefile fortify.c fmt.c cagen.c \
	    $$b && \
	cp -p test/*.c test/*.h $$b/test && mkdir -p $$b/test/data && \
	cp -p test/data/anchor.pem $$b/test/data && \
	c='$(CAFILE)'; case $$c in ''|/*) ;; *) c=$$(pwd)/$$c ;; esac; \
	cd $$b && $(CROSSMAKE) fortify.o fmt.o && rm -f agent agent-tiny && \
	$(CROSSMAKE) $(CROSSGOALS) && \
	for p in agent agent-tiny; do [ ! -f $$p ] || \
	    $$t-strip -R .eh_frame -R .comment $$p || exit 1; done

static:
	@a='$(ARCH)'; [ -n "$$a" ] || { a=$$(uname -m); \
	case $$a in arm*) a=armhf ;; esac; }; \
	$(MAKE) cross ARCH=$$a && cp cross/$$a/agent agent-static && \
	ls -l agent-static

# agent-tiny, static: the router's build (config.mk's TINYOUT)
tiny:
	@a='$(ARCH)'; [ -n "$$a" ] || { a=$$(uname -m); \
	case $$a in arm*) a=armhf ;; esac; }; \
	$(MAKE) cross ARCH=$$a CROSSGOALS=agent-tiny && \
	cp cross/$$a/agent-tiny agent-tiny && ls -l agent-tiny

# The suite as `make test` runs it, in cross/ARCH/run: a copy of test/
# where each program is a script that runs cross/ARCH's through qemu.
# EMULATOR tells the scripts, for the few checks emulation makes untrue;
# SMALL=1 that the build is the static one (config.h's SMALL choices).
test-cross:
	$(MAKE) cross ARCH=$(ARCH) CROSSGOALS='agent $(TESTPROGS)'
	@$(CROSSARCH); \
	[ "$$(uname -m)" != $$A ] || q=; \
	if [ -n "$$q" ] && ! q=$$(command -v $$q); then \
	    echo "agent: no $$q: apt-get install qemu-user-static" >&2; \
	    exit 1; \
	fi; \
	b=$$(pwd)/cross/$$A; \
	rm -rf $$b/run $$b/shared && mkdir $$b/run && cp -R test $$b/run && \
	for p in agent $(TESTPROGS); do \
	    printf '#!/bin/sh\nexec %s %s "$$@"\n' "$$q" "$$b/$$p" \
	        >$$b/run/$$p && chmod 755 $$b/run/$$p || exit 1; \
	done; \
	cd $$b/run && EMULATOR=$$q SMALL=1 sh test/run.sh $(TESTS)

# The static binaries: static, in their size budgets (ARCH's), and one
# tool round; and one with test/data/anchor.pem compiled in, in a busybox
# chroot.  Another machine's (ARCH=armhf on x86_64) run through qemu-user.
test-static: static tiny test/fake
	@$(CROSSARCH); \
	$(MAKE) cross ARCH=$$A CROSSGOALS=test/agent-ca >/dev/null && \
	cp cross/$$A/test/agent-ca agent-ca-static
	@$(CROSSARCH); h=$$(uname -m); case $$h in arm*) h=armhf ;; esac; \
	[ $$h != $$A ] || q=; \
	rc=0; ARCH=$$A EMULATOR=$$q sh test/static.sh agent-static \
	    >static.log 2>&1 || rc=$$?; \
	cat static.log; p=$$(grep -c '^ok - ' static.log || :); \
	f=$$(grep -c '^FAIL - ' static.log || :); \
	k=$$(grep -c '^skip - ' static.log || :); \
	rm -f static.log; echo "$$p passed, $$f failed, $$k skipped"; \
	[ $$rc -eq 0 ] && [ $$f -eq 0 ]

clean:
	rm -f agent agent-static agent-tiny agent-ca-static $(OBJ) \
	    $(STUBOBJ) fmt.o fortify.o $(TESTPROGS) $(FUZZ) cagen ca.h \
	    agent-$(VERSION).tar.gz
	rm -rf .fuzz cross asan test/ca

dist: clean
	mkdir -p agent-$(VERSION)/test agent-$(VERSION)/bench
	cp -R LICENSE Makefile README config.mk config.def.h agent.1 $(HDR) \
	    $(SRC) $(STUBSRC) fortify.c fmt.c cagen.c \
	    agent-$(VERSION)
	cp test/*.c test/*.h test/*.sh agent-$(VERSION)/test
	cp -R test/corpus test/data agent-$(VERSION)/test
	cp bench/*.c bench/*.sh bench/*.awk agent-$(VERSION)/bench
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

.PHONY: FORCE all bench demo fuzz test test-asan clean dist install uninstall \
	static tiny cross test-cross test-static
