# slime: PostgreSQL extension for Minecraft worlds (PGXS build)

EXTENSION = slime
EXTVERSION = 0.1.0
MODULE_big = slime
DATA = $(wildcard sql/slime--*.sql)

CORE_SRCS = $(sort $(wildcard src/core/*.c))
PG_SRCS = $(sort $(wildcard src/*.c))
OBJS = $(CORE_SRCS:.c=.o) $(PG_SRCS:.c=.o)

LIBS_CORE = -lzstd -ldeflate -llz4 -lxxhash -lnettle
SHLIB_LINK = $(LIBS_CORE)
PG_CPPFLAGS = -Isrc/core
PG_CFLAGS = -std=gnu99 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers

REGRESS = setup type region corpus
REGRESS_OPTS = --inputdir=. --outputdir=test/regress-out

# the shared corpus of real world files, read in place by the corpus tests
SLIME_CORPUS ?= $(abspath $(CURDIR)/../shared/corpus)
export SLIME_CORPUS

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# ---- the core library, unit tests and the command-line tool ----
CORE_CC ?= cc
CORE_CFLAGS ?= -std=c99 -D_POSIX_C_SOURCE=200809L -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare
UNIT_SRCS = $(sort $(wildcard test/unit/*.c))

build/libslimecore.a: $(CORE_SRCS) $(wildcard src/core/*.h)
	@mkdir -p build/core
	set -e; for f in $(CORE_SRCS); do $(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -c $$f -o build/core/$$(basename $$f .c).o; done
	rm -f $@ && ar rcs $@ build/core/*.o

build/unit: build/libslimecore.a $(UNIT_SRCS) $(wildcard test/unit/*.h test/unit/*.def)
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core -Itest/unit $(UNIT_SRCS) build/libslimecore.a $(LIBS_CORE) -o $@

TOOL_SRCS = $(sort $(wildcard src/tool/*.c))
build/slimetool: build/libslimecore.a $(TOOL_SRCS) $(wildcard src/tool/*.h)
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core $(TOOL_SRCS) build/libslimecore.a $(LIBS_CORE) -o $@

build/corpus_test: build/libslimecore.a test/corpus/corpus_test.c
	$(CORE_CC) $(CORE_CFLAGS) $(CORE_EXTRA) -Isrc/core test/corpus/corpus_test.c build/libslimecore.a $(LIBS_CORE) -o $@

.PHONY: unit tool corpus
corpus: build/corpus_test
	./build/corpus_test
unit: build/unit
	cd $(CURDIR) && ./build/unit

tool: build/slimetool

clean: clean-core
clean-core:
	rm -rf build test/regress-out
