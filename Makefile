# xqtb - Xiangqi endgame tablebases.  Plain GNU make.
#
#   make            build build/xqtb, build/libxqtb.a, build/libxqtb.so
#   make demo       build, then generate the default endgame and probe it
#   make test       the whole suite: normal build and install check, then
#                   ASan+UBSan build, then the threaded probe test under TSan;
#                   test binaries run JOBS at a time (default: the cores)
#   make test-tsan  the threaded probe test under ThreadSanitizer only
#   make test-install  install into a scratch prefix, build and run
#                   scripts/example_probe.c against it
#   make bench      benchmarks (perft, generation, rulings, labels, DTC, compression, probes,
#                   searched entries' blocks, check)
#   make fuzz       run the libFuzzer targets for a while (clang)
#   make install PREFIX=/usr/local
#
# BUILD selects the output directory; SAN=1 builds with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-san/, TSAN=1 with ThreadSanitizer
# into build-tsan/.

CC      ?= cc
OPT     ?= -O2
SAN     ?=
TSAN    ?=
ifeq ($(SAN),1)
BUILD   ?= build-san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# -O2: the sanitizer suite runs 23-29% faster than at -O1 (test_limit 80.6
# -> 62.1 s, test_ref_repetition 51.4 -> 36.7 s, 2026-11-28), with the same
# checks
OPT      = -O2 -g
else ifeq ($(TSAN),1)
BUILD   ?= build-tsan
SANFLAGS = -fsanitize=thread -fno-omit-frame-pointer
OPT      = -O1 -g
else
BUILD   ?= build
endif
PREFIX  ?= /usr/local

# the version is the public header's (probe/xqtb.h), so that the two cannot differ
VERSION      := $(shell awk '/^#define XQTB_VERSION_(MAJOR|MINOR|PATCH) / { v = v s $$3; s = "." } END { print v }' probe/xqtb.h)
SOVERSION     = 1
CSTD          = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN          = -Wall -Wextra -Wshadow -Wmissing-prototypes
ALL_CFLAGS    = $(CSTD) $(OPT) $(WARN) $(SANFLAGS) -fPIC -pthread $(CFLAGS)
LIBS          = -lzstd -llz4 -lxxhash -lpthread -lm
ALL_LDFLAGS   = $(SANFLAGS) -pthread $(LDFLAGS)

CORE_SRC  = $(sort $(wildcard core/*.c))
PROBE_SRC = $(sort $(wildcard probe/*.c))
GEN_SRC   = $(sort $(wildcard gen/*.c))
CLI_SRC   = $(sort $(wildcard gen/cli/*.c))
TEST_SRC  = $(sort $(wildcard tests/test_*.c))
TEST_SUPPORT_SRC = $(sort $(wildcard tests/lib/*.c tests/ref/*.c))
FORMAT_SRC = $(sort $(wildcard core/*.[ch] probe/*.[ch] gen/*.[ch] gen/cli/*.[ch] tests/*.[ch] \
               tests/lib/*.[ch] tests/ref/*.[ch] tests/fuzz/*.c scripts/*.c))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
LIB_OBJ   = $(call obj,$(CORE_SRC) $(PROBE_SRC))
GEN_OBJ   = $(call obj,$(GEN_SRC))
CLI_OBJ   = $(call obj,$(CLI_SRC))
TEST_SUPPORT_OBJ = $(call obj,$(TEST_SUPPORT_SRC))

# Each folder sees only the headers it may use, so a dependency against the
# layering (README.md, "Where things are") is a compile error:
#   core/     the rules core: itself only
#   probe/    the library: core/ and itself, never gen/
#   gen/      the generator: core/ and itself, never probe/
#   gen/cli/  the command: the generator and the public xqtb.h only, the
#             way an engine sees the library ($(BUILD)/include holds it alone)
#   tests/    everything, to check it
PUBLIC_INC = $(BUILD)/include
TEST_INC   = -Icore -Iprobe -Igen -Itests/lib -Itests/ref
$(BUILD)/obj/core/%.o:    INC = -Icore
$(BUILD)/obj/probe/%.o:   INC = -Icore -Iprobe
$(BUILD)/obj/gen/%.o:     INC = -Icore -Igen
$(BUILD)/obj/gen/cli/%.o: INC = -Icore -Igen -Igen/cli -I$(PUBLIC_INC)
$(BUILD)/obj/tests/%.o:   INC = $(TEST_INC)
TEST_BIN  = $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))

STATIC    = $(BUILD)/libxqtb.a
SHARED    = $(BUILD)/libxqtb.so.$(VERSION)
XQTB      = $(BUILD)/xqtb

.PHONY: all deps build demo test test-run test-install test-browser test-tsan check bench fuzz install clean format lint
.DEFAULT_GOAL := all

all: build
build: $(XQTB) $(STATIC) $(SHARED)

deps:
	@sh scripts/deps.sh

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(INC) -MMD -MP -c $< -o $@

$(PUBLIC_INC)/xqtb.h: probe/xqtb.h
	@mkdir -p $(dir $@)
	cp $< $@
$(CLI_OBJ): $(PUBLIC_INC)/xqtb.h

$(STATIC): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(SHARED): $(LIB_OBJ) probe/xqtb.map
	$(CC) -shared -Wl,-soname,libxqtb.so.$(SOVERSION) -Wl,--version-script=probe/xqtb.map $(ALL_LDFLAGS) \
	  -o $@ $(LIB_OBJ) $(LIBS)
	ln -sf libxqtb.so.$(VERSION) $(BUILD)/libxqtb.so.$(SOVERSION)
	ln -sf libxqtb.so.$(VERSION) $(BUILD)/libxqtb.so

# The web explorer's page ships inside the binary (xqtb serve).
WEB_PAGE = $(BUILD)/obj/gen/cli/web/explorer_page.o
$(BUILD)/obj/gen/cli/web/explorer_page.c: gen/cli/web/explorer.html scripts/embed
	@mkdir -p $(dir $@)
	sh scripts/embed $< xqtb_explorer_page > $@
$(WEB_PAGE): $(BUILD)/obj/gen/cli/web/explorer_page.c
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(XQTB): $(CLI_OBJ) $(GEN_OBJ) $(WEB_PAGE) $(STATIC)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) -lmicrohttpd

# Test binaries are compiled and linked in one step, without -MMD, so their
# header dependencies are listed here; .SECONDARY keeps make from deleting
# the support objects as intermediates (and rebuilding them every run).
$(TEST_BIN): $(wildcard tests/lib/*.h tests/ref/*.h core/*.h probe/*.h gen/*.h)
.SECONDARY: $(TEST_SUPPORT_OBJ)
$(BUILD)/tests/%: tests/%.c $(TEST_SUPPORT_OBJ) $(GEN_OBJ) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_INC) -o $@ $(filter-out %.h,$^) $(ALL_LDFLAGS) -lcmocka $(LIBS)

# Runs every test binary of one build, JOBS at a time (make -j in a
# sub-make; -O prints each test's output whole when it ends, so that two
# never interleave), the slowest first so that the last to end are short
# ones; -k runs them all even if one fails.  Each output is also kept in
# $(BUILD)/test-logs/NAME.log.  The xqtb binary is found through XQTB for
# tests that drive the CLI.
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
# Measured slowest first (both builds' times summed, 2026-11-28); the
# order only decides when each starts.
TEST_SLOW  = test_limit test_repetition test_probe test_reader test_limit_ref test_sets test_probe_damage test_pass_direction test_repetition_ref \
             test_playout test_ref_repetition test_cli_tables test_fixture test_index test_check test_unpack \
             test_gen_ref test_gen_memory test_serve test_verdict test_theory
TEST_NAMES = $(patsubst tests/%.c,%,$(TEST_SRC))
TEST_ORDER = $(filter $(TEST_NAMES),$(TEST_SLOW)) $(filter-out $(TEST_SLOW),$(TEST_NAMES))
TEST_LOGS  = $(BUILD)/test-logs
TEST_RUNS  = $(patsubst %,$(TEST_LOGS)/%.run,$(TEST_ORDER))
.PHONY: test-pool test-bins $(TEST_RUNS)

test-run: $(TEST_BIN) $(XQTB)
	@rm -rf $(TEST_LOGS) && mkdir -p $(TEST_LOGS)
	@t0=$$(date +%s); rc=0; \
	$(MAKE) --no-print-directory -k -O -j$(JOBS) test-pool || rc=1; \
	pass=$$(ls $(TEST_LOGS) | grep -c '\.passed$$' || :); \
	fail=$$(ls $(TEST_LOGS) | grep -c '\.failed$$' || :); \
	echo "$(BUILD) times:$$(cat $(TEST_LOGS)/*.passed $(TEST_LOGS)/*.failed 2>/dev/null | tr '\n' ' ')"; \
	for f in $(TEST_LOGS)/*.failed; do [ -e "$$f" ] && echo "FAILED: $(BUILD)/tests/$$(basename $$f .failed)"; done; \
	echo "$(BUILD): $$pass passed, $$fail failed, $$(( $$(date +%s) - t0 )) s with $(JOBS) at a time"; \
	[ $$rc -eq 0 ] && [ $$fail -eq 0 ] && [ $$pass -eq $(words $(TEST_NAMES)) ]

test-pool: $(TEST_RUNS)

# The binaries test-run needs, built on their own so that `make test` can
# compile them JOBS at a time.
test-bins: $(TEST_BIN) $(XQTB)

$(TEST_RUNS): $(TEST_LOGS)/%.run: $(BUILD)/tests/%
	@t0=$$(date +%s); \
	if XQTB=$(abspath $(XQTB)) XQTB_BUILD=$(abspath $(BUILD)) XQTB_SAN=$(SAN) $< >$(TEST_LOGS)/$*.log 2>&1; \
	then st=passed; else st=failed; fi; \
	cat $(TEST_LOGS)/$*.log; \
	echo "$* $$(( $$(date +%s) - t0 ))s" >$(TEST_LOGS)/$*.$$st; \
	echo "== $(BUILD)/tests/$*: $$st in $$(( $$(date +%s) - t0 )) s"; \
	[ $$st = passed ]

# The whole suite: the optimised build and its installation, then the
# sanitizer build, then the concurrency test under ThreadSanitizer.
test: deps
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory -j$(JOBS) test-bins
	$(MAKE) --no-print-directory test-run
	$(MAKE) --no-print-directory test-install
	$(MAKE) --no-print-directory test-browser
	$(MAKE) --no-print-directory -j$(JOBS) SAN=1 test-bins
	$(MAKE) --no-print-directory SAN=1 test-run
	$(MAKE) --no-print-directory test-tsan
	@echo "all test suites passed"

# ThreadSanitizer: the library, the generator objects and the threaded probe
# test built with -fsanitize=thread into build-tsan/; any report fails it.
# Then a whole generation on two threads (KRKN and its subtables: every
# parallel step of the generator, the rulings' rounds, graph and solves
# among them) by the xqtb built so, into a scratch directory.
TSAN_TESTS = build-tsan/tests/test_probe_threads build-tsan/tests/test_parallel
test-tsan: deps
	$(MAKE) --no-print-directory -j$(JOBS) TSAN=1 $(TSAN_TESTS) build-tsan/xqtb
	@set -e; for t in $(TSAN_TESTS); do \
	  XQTB_TSAN=1 TSAN_OPTIONS="halt_on_error=1 exitcode=66 $(TSAN_OPTIONS)" $$t; \
	done
	@rm -rf build-tsan/gen-check && mkdir -p build-tsan/gen-check
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 $(TSAN_OPTIONS)" build-tsan/xqtb gen -q -t 2 -d build-tsan/gen-check KRKN
	@rm -rf build-tsan/gen-check
	@echo "ThreadSanitizer: the threaded probe test, the pool, and a 2-thread generation passed"

# `make install` into a scratch prefix, then scripts/example_probe.c built
# against it with pkg-config (shared and static) and run on a KRK table.
INSTALL_CHECK = $(BUILD)/install-check
# The web explorer in headless Chromium (skipped, saying so, without it).
test-browser: build
	sh tests/browser_check.sh $(abspath $(XQTB)) $(abspath $(BUILD))/browser-check

test-install: build
	rm -rf $(INSTALL_CHECK) && mkdir -p $(INSTALL_CHECK)
	$(MAKE) --no-print-directory install PREFIX=$(abspath $(INSTALL_CHECK))/prefix
	CC="$(CC)" sh tests/install_check.sh $(abspath $(INSTALL_CHECK))/prefix $(abspath $(INSTALL_CHECK))

check: test

demo: deps build
	@sh scripts/demo.sh $(XQTB)

# Benchmarks print their figures; docs/BENCHMARKS.md records them.
bench: deps build
	@sh scripts/bench-perft $(XQTB)
	@sh scripts/bench-gen $(XQTB)
	@sh scripts/bench-rules $(XQTB)
	@sh scripts/bench-labels $(BUILD)
	@sh scripts/bench-dtc $(BUILD)
	@sh scripts/bench-compress $(BUILD)
	@sh scripts/bench-zparams $(BUILD)
	@sh scripts/bench-probe $(BUILD)
	@sh scripts/bench-searched $(BUILD)
	@sh scripts/bench-check $(XQTB)
	@sh scripts/bench-index $(XQTB)
	@sh scripts/bench-parallel $(BUILD)
	@sh scripts/bench-serve $(BUILD)
	@sh scripts/bench-whole $(XQTB)

# libFuzzer targets (clang).  FUZZ_SECONDS bounds each run.  The corpus
# grows in build-fuzz/corpus-NAME; tests/fuzz/seeds/NAME seeds it, and
# tests/fuzz/NAME.dict, if present, gives the fuzzer the format's tokens.
# UBSan findings abort so that libFuzzer keeps the input that caused them.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = $(patsubst tests/fuzz/%.c,build-fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
build-fuzz/%: tests/fuzz/%.c $(CORE_SRC) $(PROBE_SRC) $(wildcard core/*.h probe/*.h)
	@mkdir -p build-fuzz
	clang $(CSTD) $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  -Icore -Iprobe -o $@ $(filter %.c,$^) $(LIBS)
# fuzz_rawfile reads the generator's raw files and fuzz_setspec parses the
# table sets, so they take gen's sources.
build-fuzz/fuzz_rawfile build-fuzz/fuzz_setspec: build-fuzz/%: tests/fuzz/%.c $(CORE_SRC) $(PROBE_SRC) $(GEN_SRC) \
  $(wildcard core/*.h probe/*.h gen/*.h)
	@mkdir -p build-fuzz
	clang $(CSTD) $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  -Icore -Iprobe -Igen -o $@ $(filter %.c,$^) $(LIBS)
# fuzz_tbfile also reads every input with the tests' second reader of the
# files (tests/ref/ref_reader.c), which must agree with the library.
build-fuzz/fuzz_tbfile: tests/fuzz/fuzz_tbfile.c tests/ref/ref_reader.c $(CORE_SRC) $(PROBE_SRC) \
  $(wildcard core/*.h probe/*.h tests/ref/ref_reader.h)
	@mkdir -p build-fuzz
	clang $(CSTD) $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  -Icore -Iprobe -Itests/ref -o $@ $(filter %.c,$^) $(LIBS)
# fuzz_tbfile is seeded with real table files, generated here by the xqtb
# binary of the normal build (KRKA has several DTM blocks; KK, KAK and KRK
# come along as its subtables), and with KRKN's WDL file in 2048-entry
# blocks, which carries a codec dictionary (gen tries none on a file of
# KRKN's size with the default blocks); the fuzzer finds the tables, for
# the other kind's file and for the subtables root moves need, in
# XQTB_FUZZ_TABLES.
FUZZ_TABLES = build-fuzz/tables
$(FUZZ_TABLES)/KRKA.xqd: $(XQTB)
	rm -rf $(FUZZ_TABLES) && mkdir -p $(FUZZ_TABLES)
	$(XQTB) gen -q -d $(FUZZ_TABLES) KRK KRKA KRKN
build-fuzz/bench_compress: scripts/bench_compress.c $(CORE_SRC) $(PROBE_SRC) $(GEN_SRC) $(wildcard core/*.h probe/*.h gen/*.h)
	@mkdir -p build-fuzz
	clang $(CSTD) $(WARN) -O1 -Icore -Iprobe -Igen -o $@ $(filter %.c,$^) $(LIBS)
build-fuzz/seeds-fuzz_tbfile: $(FUZZ_TABLES)/KRKA.xqd build-fuzz/bench_compress
	rm -rf $@ build-fuzz/dictionary && mkdir -p $@ build-fuzz/dictionary
	for m in KK KAK KRK KRKA; do cp $(FUZZ_TABLES)/$$m.xqw $(FUZZ_TABLES)/$$m.xqd $(FUZZ_TABLES)/$$m.xqc $@/; done
	build-fuzz/bench_compress $(FUZZ_TABLES) KRKN build-fuzz/dictionary 2048 4096 zstd 12 >/dev/null
	cp build-fuzz/dictionary/KRKN.xqw $@/KRKN-dictionary.xqw
# fuzz_rawfile: KRK's raw file as gen --keep-raw writes it (gen no longer
# writes compressed raw files, version 4, which the reader still takes).
build-fuzz/seeds-fuzz_rawfile: $(FUZZ_TABLES)/KRKA.xqd
	rm -rf $@ build-fuzz/tables-plain && mkdir -p $@
	$(XQTB) gen -q --keep-raw -d build-fuzz/tables-plain KRK
	cp build-fuzz/tables-plain/KRK.xqtb $@/plain.xqtb
fuzz: $(FUZZ_TARGETS) build-fuzz/seeds-fuzz_tbfile build-fuzz/seeds-fuzz_rawfile
	@set -e; for t in $(FUZZ_TARGETS); do \
	  n=$$(basename $$t); mkdir -p build-fuzz/corpus-$$n; \
	  dict=; [ -f tests/fuzz/$$n.dict ] && dict=-dict=tests/fuzz/$$n.dict; \
	  seeds=; for s in tests/fuzz/seeds/$$n build-fuzz/seeds-$$n; do [ -d $$s ] && seeds="$$seeds $$s"; done; \
	  XQTB_FUZZ_TABLES=$(abspath $(FUZZ_TABLES)) $$t $$dict -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=build-fuzz/ \
	    build-fuzz/corpus-$$n $$seeds || exit 1; \
	done

install: build
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 probe/xqtb.h $(DESTDIR)$(PREFIX)/include/xqtb.h
	install -m 644 $(STATIC) $(DESTDIR)$(PREFIX)/lib/libxqtb.a
	install -m 755 $(SHARED) $(DESTDIR)$(PREFIX)/lib/libxqtb.so.$(VERSION)
	ln -sf libxqtb.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libxqtb.so.$(SOVERSION)
	ln -sf libxqtb.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libxqtb.so
	install -m 755 $(XQTB) $(DESTDIR)$(PREFIX)/bin/xqtb
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' probe/xqtb.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/xqtb.pc

format:
	clang-format -i $(FORMAT_SRC)

# Checks that need no test binary, run first by `make test`: every file
# formatted as the committed .clang-format says (clang-format comes from
# scripts/deps.sh), and no enum constant outside the range of int (ISO C
# 6.7.2.2; gcc and clang accept it silently without -Wpedantic, which the
# 128-bit board masks rule out for whole builds).
lint: deps $(PUBLIC_INC)/xqtb.h
	@clang-format --dry-run --Werror $(FORMAT_SRC)
	@for f in $(filter %.c,$(FORMAT_SRC)); do \
	  $(CC) $(CSTD) -fsyntax-only -Wpedantic $(TEST_INC) -Igen/cli -I$(PUBLIC_INC) $$f 2>&1; \
	done | grep 'enumerator value' | sort -u | grep . && { echo "lint: enum constants out of int range"; exit 1; } || true
	@echo "lint: $(words $(FORMAT_SRC)) files formatted, enum constants in range"

clean:
	rm -rf build build-san build-tsan build-fuzz

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
