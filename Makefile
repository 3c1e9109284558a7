# slime: PostgreSQL extension for Minecraft worlds (PGXS build)

EXTENSION = slime
EXTVERSION = 0.13.0
MODULE_big = slime
DATA = $(wildcard sql/slime--*.sql)

CORE_SRCS = $(sort $(wildcard src/core/*.c))
PG_SRCS = $(sort $(wildcard src/*.c))
OBJS = $(CORE_SRCS:.c=.o) $(PG_SRCS:.c=.o)

LIBS_CORE = -lzstd -ldeflate -llz4 -lxxhash -lnettle -lspng -lz
# -Bsymbolic: the core's calls to its own functions stay inside slime.so. Without
# it, sl_free resolves to libbsd's sl_free (stringlist) once the JIT provider
# (llvmjit -> libedit -> libbsd) is loaded first, and JIT-compiled queries crash.
SHLIB_LINK = $(LIBS_CORE) -Wl,-Bsymbolic
PG_CPPFLAGS = -Isrc/core -DSLIME_EXTVERSION='"$(EXTVERSION)"'
PG_CFLAGS = -std=gnu99 -Werror=implicit-function-declaration -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers

REGRESS = setup type region contents blocks summary limits store upgrade slimefile schem lease loader defer render shard settle gc corpus worldfile
REGRESS_OPTS = --inputdir=. --outputdir=test/regress-out

# the shared corpus of real world files, read in place by the corpus tests
SLIME_CORPUS ?= $(abspath $(CURDIR)/../shared/corpus)
export SLIME_CORPUS

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track header dependencies: rebuild every object when a header changes
$(OBJS): $(wildcard src/*.h src/core/*.h)

# ---- the core library, unit tests and the command-line tool ----
CORE_CC ?= cc
CORE_CFLAGS ?= -std=c99 -D_POSIX_C_SOURCE=200809L -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare
UNIT_SRCS = $(sort $(wildcard test/unit/*.c))

build/libslimecore.a: $(CORE_SRCS) $(wildcard src/core/*.h)
	@mkdir -p build/core
	set -e; for f in $(CORE_SRCS); do $(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -c $$f -o build/core/$$(basename $$f .c).o; done
	rm -f $@ && ar rcs $@ build/core/*.o

# the unit tests also reach map-server's request logic, workers and request
# deadline (src/tool/webapi.c, workq.c, slowguard.c: no HTTP, no libpq)
UNIT_TOOL_SRCS = src/tool/webapi.c src/tool/workq.c src/tool/slowguard.c
build/unit: build/libslimecore.a $(UNIT_SRCS) $(UNIT_TOOL_SRCS) $(UNIT_TOOL_SRCS:.c=.h) $(wildcard test/unit/*.h test/unit/*.def)
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Isrc/tool -Itest/unit $(UNIT_SRCS) $(UNIT_TOOL_SRCS) build/libslimecore.a $(LIBS_CORE) -lpthread -o $@

TOOL_SRCS = $(sort $(wildcard src/tool/*.c))
# map-server (src/tool/mapserver.c) talks HTTP through libmicrohttpd and SQL through libpq
LIBS_TOOL = -lpq -lmicrohttpd -lpthread
build/slimetool: build/libslimecore.a $(TOOL_SRCS) $(wildcard src/tool/*.h)
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -I$(shell $(PG_CONFIG) --includedir) $(TOOL_SRCS) build/libslimecore.a $(LIBS_CORE) $(LIBS_TOOL) -o $@

build/corpus_test: build/libslimecore.a test/corpus/corpus_test.c test/corpus/corpus_util.h test/corpus/summary_check.h
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Itest/corpus test/corpus/corpus_test.c build/libslimecore.a $(LIBS_CORE) -o $@

build/slimefile_corpus: build/libslimecore.a test/corpus/slimefile_corpus.c test/corpus/corpus_util.h test/corpus/summary_check.h
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Itest/corpus test/corpus/slimefile_corpus.c build/libslimecore.a $(LIBS_CORE) -o $@

build/bench_size: build/libslimecore.a test/bench/bench_size.c test/corpus/corpus_util.h test/bench/bench_zstd.h
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Itest/corpus test/bench/bench_size.c build/libslimecore.a $(LIBS_CORE) -o $@

build/bench_ideas: build/libslimecore.a test/bench/bench_ideas.c test/corpus/corpus_util.h
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Itest/corpus test/bench/bench_ideas.c build/libslimecore.a $(LIBS_CORE) -o $@

build/bench_schem: build/libslimecore.a test/bench/bench_schem.c test/corpus/corpus_util.h
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Itest/corpus test/bench/bench_schem.c build/libslimecore.a $(LIBS_CORE) -o $@

build/bench_entropy: build/libslimecore.a test/bench/bench_entropy.c test/corpus/corpus_util.h test/bench/bench_zstd.h
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Itest/corpus test/bench/bench_entropy.c build/libslimecore.a $(LIBS_CORE) -lm -o $@

build/bench_bcodec: build/libslimecore.a test/bench/bench_bcodec.c test/corpus/corpus_util.h test/bench/bench_zstd.h
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Itest/corpus test/bench/bench_bcodec.c build/libslimecore.a $(LIBS_CORE) -o $@

build/bench_granularity: build/libslimecore.a test/bench/bench_granularity.c test/corpus/corpus_util.h
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Itest/corpus test/bench/bench_granularity.c build/libslimecore.a $(LIBS_CORE) -o $@

build/bench_frame_levels: build/libslimecore.a test/bench/bench_frame_levels.c test/corpus/corpus_util.h
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Itest/corpus test/bench/bench_frame_levels.c build/libslimecore.a $(LIBS_CORE) -o $@

# the benchmarks' libpq client (test/bench/bench_sql.sh, bench_store.sh, bench_save.sh)
build/bench_client: test/bench/bench_client.c
	@mkdir -p build
	$(CORE_CC) -O2 -Wall -I$(shell $(PG_CONFIG) --includedir) $< -lpq -lpthread -o $@

# the page of slimetool map-server: our files and Leaflet from npm, in
# build/webmap (the server reads them from webmap/ beside build/slimetool)
WEBMAP_SRCS = $(addprefix src/tool/webmap/,index.html map.js map.css package.json)
build/webmap/leaflet.js: $(WEBMAP_SRCS)
	@mkdir -p build/webmap/npm
	cp $(WEBMAP_SRCS) build/webmap/
	cp src/tool/webmap/package.json build/webmap/npm/
	cd build/webmap/npm && npm install --no-audit --no-fund --loglevel=error
	cp build/webmap/npm/node_modules/leaflet/dist/leaflet.js build/webmap/npm/node_modules/leaflet/dist/leaflet.css build/webmap/
	rm -f build/webmap/package.json

.PHONY: webmap doc-webmap
webmap: build/slimetool build/webmap/leaflet.js

# the screenshot in the README: the page as the browser test sees it
doc-webmap:
	SLIME_WEBMAP_SCREENSHOT=$(CURDIR)/doc/img/webmap.png bash test/webmap.sh

.PHONY: unit tool corpus
corpus: build/corpus_test
	./build/corpus_test
unit: build/unit
	cd $(CURDIR) && ./build/unit

tool: build/slimetool

# the map in the README: a corpus world drawn by slimetool render (the code
# of slime_render_map); make doc-map regenerates it
DOC_MAP_SOURCE = anvil-1.2-1.12/pymclevel/AnvilWorld/r.0.0.mca
.PHONY: doc-map
doc-map: build/slimetool
	@mkdir -p doc/img
	./build/slimetool render "$(SLIME_CORPUS)/$(DOC_MAP_SOURCE)" --quiet -o doc/img/map-anvilworld.png

clean: clean-core
clean-core:
	rm -rf build test/regress-out

# ==== fuzzing (libFuzzer) — test/fuzz/, see test/fuzz/README.md ============
# make fuzz-build            build/fuzz/fuzz_<target> (clang, ASan + UBSan)
# make fuzz-seeds            seed corpora under build/fuzz-seeds/ (test/fuzz/seeds.sh)
# make fuzz-regress          replay test/fuzz/regress/ and the seeds; fails on a crash
# make fuzz-ci               the repeatable stage CI runs: FUZZ_RUNS inputs a target
#                            from the fixed seed FUZZ_SEED (same inputs every run)
# make fuzz FUZZ_SECONDS=1800  the open-ended campaign for developer machines: a
#                            random seed, FUZZ_SECONDS a target, FUZZ_JOBS at a time;
#                            FUZZ_TARGETS="nbt value" picks targets; crashes are
#                            copied into test/fuzz/regress/<target>/ (FUZZ_SAVE=0: not)
FUZZ_CC ?= clang
FUZZ_TARGETS ?= nbt region value lz4 inflate blocks store slimefile schem bcodec bcodec2 bcodec3 bcodec4 bcodec5 lmemo pack sfframes
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?= 10000
FUZZ_SEED ?= 1
FUZZ_JOBS ?= 2
FUZZ_SAVE ?= 1
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=c99 -D_POSIX_C_SOURCE=200809L -g -O1 $(FUZZ_SAN) -Wall -Wno-unused-parameter -Wno-sign-compare
FUZZ_CORE_OBJS = $(patsubst src/core/%.c,build/fuzz/core/%.o,$(CORE_SRCS))
FUZZ_BINS = $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)

build/fuzz/core/%.o: src/core/%.c $(wildcard src/core/*.h)
	@mkdir -p build/fuzz/core
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -Isrc/core -c $< -o $@

build/fuzz/fuzz_%: test/fuzz/fuzz_%.c test/fuzz/fuzz_common.h test/fuzz/fuzz_bcodec.c $(FUZZ_CORE_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Isrc/core $< $(FUZZ_CORE_OBJS) $(LIBS_CORE) -o $@

build/fuzz/gen_seeds: test/fuzz/gen_seeds.c build/libslimecore.a
	@mkdir -p build/fuzz
	$(CORE_CC) $(CORE_CFLAGS) -Isrc/core $< build/libslimecore.a $(LIBS_CORE) -o $@

.PHONY: fuzz-build fuzz-seeds fuzz fuzz-regress fuzz-ci
fuzz-build: $(FUZZ_BINS)

fuzz-seeds: build/fuzz/gen_seeds build/slimetool
	bash test/fuzz/seeds.sh

fuzz: fuzz-build fuzz-seeds
	FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_SAVE=$(FUZZ_SAVE) bash test/fuzz/run.sh fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-regress: fuzz-build fuzz-seeds
	FUZZ_JOBS=$(FUZZ_JOBS) bash test/fuzz/run.sh regress 0 $(FUZZ_TARGETS)

fuzz-ci: fuzz-build fuzz-seeds
	FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_SAVE=0 FUZZ_SEED=$(FUZZ_SEED) bash test/fuzz/run.sh ci $(FUZZ_RUNS) $(FUZZ_TARGETS)
# ==== end of fuzzing =========================================================

# ==== blocks and biomes (sl_blocks) — see data/README.md ====================
# make blocks-check   count every corpus chunk's blocks and biomes with
#                     sl_blocks and with an independent decoder; fail on any
#                     difference (test/corpus/blocks_check.c)
# make legacy-check   regenerate src/core/sl_legacy.c from data/*.tsv into
#                     build/ and fail when the committed copy differs
# make mapcolor-check the same for src/core/sl_mapcolor.c (data/map_colors.tsv)
build/blocks_check: build/libslimecore.a test/corpus/blocks_check.c test/corpus/corpus_util.h
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Itest/corpus test/corpus/blocks_check.c build/libslimecore.a $(LIBS_CORE) -o $@

# one world of each era rendered, the PNG decoded again by libspng (test/corpus.sh)
build/render_check: build/libslimecore.a test/corpus/render_check.c test/corpus/corpus_util.h
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Itest/corpus test/corpus/render_check.c build/libslimecore.a $(LIBS_CORE) -o $@

# every corpus schematic pasted into corpus worlds, extracted back, restored (test/corpus.sh)
build/schem_check: build/libslimecore.a test/corpus/schem_check.c test/corpus/corpus_util.h
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Itest/corpus test/corpus/schem_check.c build/libslimecore.a $(LIBS_CORE) -o $@

build/sl_legacy.c: data/gen_legacy.sh data/legacy_blocks.tsv data/legacy_biomes.tsv
	@mkdir -p build
	sh data/gen_legacy.sh > $@

build/sl_mapcolor.c: data/gen_mapcolors.sh data/map_colors.tsv
	@mkdir -p build
	sh data/gen_mapcolors.sh > $@

.PHONY: blocks-check legacy-check mapcolor-check
blocks-check: build/blocks_check
	./build/blocks_check "$(SLIME_CORPUS)" data

legacy-check: build/sl_legacy.c
	cmp build/sl_legacy.c src/core/sl_legacy.c

# make mapcolor-check: regenerate src/core/sl_mapcolor.c from data/map_colors.tsv
# into build/ and fail when the committed copy differs
mapcolor-check: build/sl_mapcolor.c
	cmp build/sl_mapcolor.c src/core/sl_mapcolor.c
# ==== end of blocks and biomes ===============================================

# ==== the AdvancedSlimePaper loader (clients/java) ============================
# make java        build/java/slime-asp-loader.jar (javac + jar; Debian's
#                  default-jdk-headless); compiled against the test-only copy
#                  of ASP's API in clients/java/asp-api-stub/, not packaged
# make java-test   its JUnit 5 tests (junit5, libpostgresql-jdbc-java) against
#                  the database of SLIME_JDBC_URL (test/java.sh sets it up)
JAVA_LIBDIR ?= /usr/share/java
JAVAC = javac --release 17 -Xlint:all,-serial -Werror -encoding UTF-8
JAVA_STUB_SRCS = $(sort $(wildcard clients/java/asp-api-stub/com/infernalsuite/asp/api/*/*.java))
JAVA_SRCS = $(sort $(wildcard clients/java/src/main/java/dev/slime/asp/*.java))
JAVA_TEST_SRCS = $(sort $(wildcard clients/java/src/test/java/dev/slime/asp/*.java))
JAVA_TEST_CP = build/java/slime-asp-loader.jar:build/java/stub:$(JAVA_LIBDIR)/junit-platform-console-standalone.jar:$(JAVA_LIBDIR)/postgresql.jar:$(JAVA_LIBDIR)/zstd-jni.jar

build/java/slime-asp-loader.jar: $(JAVA_SRCS) $(JAVA_STUB_SRCS)
	rm -rf build/java/stub build/java/classes
	$(JAVAC) -d build/java/stub $(JAVA_STUB_SRCS)
	$(JAVAC) -cp build/java/stub -d build/java/classes $(JAVA_SRCS)
	jar --create --file $@ -C build/java/classes .

.PHONY: java java-test java-classpath
java: build/java/slime-asp-loader.jar

# SLIME_JAVA_RUN=0: compile the tests only (test/bench/bench_loader.sh reuses their helpers)
SLIME_JAVA_RUN ?= 1
java-test: build/java/slime-asp-loader.jar $(JAVA_TEST_SRCS)
	rm -rf build/java/test-classes
	$(JAVAC) -Xlint:-processing -cp $(JAVA_TEST_CP) -d build/java/test-classes $(JAVA_TEST_SRCS)
	[ "$(SLIME_JAVA_RUN)" = 0 ] || java -cp $(JAVA_TEST_CP):build/java/test-classes org.junit.platform.console.ConsoleLauncher \
		--disable-banner --disable-ansi-colors --fail-if-no-tests --details=tree --scan-classpath build/java/test-classes

java-classpath:
	@echo $(JAVA_TEST_CP):build/java/test-classes
# ==== end of the AdvancedSlimePaper loader ====================================
