/*
 * bench_client.c - libpq client for test/bench/bench_sql.sh.
 *
 * Connects through the usual PG* environment variables. Subcommands:
 *
 *   chunkread N
 *       (i) N calls of a prepared
 *       SELECT slime_chunk_nbt(world, $2, $3) FROM chunkbench WHERE id = $1
 *       against the 1024-chunk value (id 0) and against the 1-chunk values
 *       (id 1..1024) holding the same chunks, same positions, same random
 *       order; best of 3 rounds each.
 *   islands FILE SECONDS THREADS
 *       (ii) island values from FILE (u32 LE length + value bytes, as written
 *       by bench_size --emit-islands; "sql:QUERY": the first column of the
 *       rows QUERY returns) saved with INSERT ... ON CONFLICT and
 *       loaded with SELECT, binary parameters and results, THREADS
 *       connections for SECONDS each, slime column vs bytea column.
 *   hwm FILE RX RZ
 *       (iii) peak resident memory (VmHWM) of the backend before and after
 *       slime_import_region(pg_read_binary_file(FILE), RX, RZ).
 *   scan
 *       (iv) slime_block_counts / slime_block_entities over the corpus
 *       table against slime_chunks (decompression only), best of 3.
 *   copy TABLE FILE FIRST [LAST]
 *       (bench_store.sh) the values of FILE ("-": stdin; u32 LE length +
 *       value bytes, as bench_size --emit-* writes them) with index i
 *       (from 0) in FIRST..LAST (LAST omitted: to the end) loaded as rows
 *       (i, value) with one COPY TABLE (id, world) FROM STDIN (FORMAT
 *       binary); prints "rows value_bytes seconds".
 *   tiles ROUNDS ZOOM
 *       (bench_tile.sh) every tile at ZOOM (<= 0) over each world of table
 *       tilebench (name, world): a prepared SELECT slime_render_tile(world,
 *       ZOOM, $2, $3) FROM tilebench WHERE name = $1, binary results, each
 *       tile ROUNDS times; against the same statement reading only
 *       slime_content_hash (the round trip and the value's metadata, what
 *       a 304 costs) and slime_render_map of the whole world. Prints per
 *       world the median tile and the densest (each tile's median over
 *       the rounds), the worst single call, the baseline and their ratio.
 *
 * It prints fixed-width table rows; it never fails on numbers, only when a
 * query fails.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
die(const char *what, PGconn *c, PGresult *r)
{
	fprintf(stderr, "bench_client: %s failed: %s\n", what,
			r ? PQresultErrorMessage(r) : c ? PQerrorMessage(c) : "?");
	exit(2);
}

static void
quiet_notice(void *arg, const char *msg)
{
}

static PGconn *
connect_db(void)
{
	PGconn	   *c = PQconnectdb("");

	if (PQstatus(c) != CONNECTION_OK)
		die("connect", c, NULL);
	PQsetNoticeProcessor(c, quiet_notice, NULL);
	return c;
}

static PGresult *
exec_ok(PGconn *c, const char *sql)
{
	PGresult   *r = PQexec(c, sql);

	if (PQresultStatus(r) != PGRES_TUPLES_OK && PQresultStatus(r) != PGRES_COMMAND_OK)
		die(sql, c, r);
	return r;
}

static void
prepare(PGconn *c, const char *name, const char *sql, int nparams)
{
	PGresult   *r = PQprepare(c, name, sql, nparams, NULL);

	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		die(sql, c, r);
	PQclear(r);
}

static uint64_t rng = 0x51113BE7C4ULL;
static uint64_t
rnd(void)
{
	uint64_t	z = (rng += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* ------------------------------------------------------- (i) chunkread */

static double
chunk_round(PGconn *c, const int *seq, int n, const int *xs, const int *zs, int big,
			double *bytes)
{
	double		t0 = now();

	*bytes = 0;
	for (int i = 0; i < n; i++)
	{
		int			k = seq[i];
		char		id[16],
					x[16],
					z[16];
		const char *vals[3] = {id, x, z};
		PGresult   *r;

		snprintf(id, sizeof(id), "%d", big ? 0 : k);
		snprintf(x, sizeof(x), "%d", xs[k]);
		snprintf(z, sizeof(z), "%d", zs[k]);
		r = PQexecPrepared(c, "rd", 3, vals, NULL, NULL, 1);
		if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1 || PQgetisnull(r, 0, 0))
			die("chunk read (no row or NULL chunk)", c, r);
		*bytes += PQgetlength(r, 0, 0);
		PQclear(r);
	}
	return now() - t0;
}

static void
cmd_chunkread(int n)
{
	PGconn	   *c = connect_db();
	PGresult   *r = exec_ok(c, "SELECT id, x, z FROM chunkbench WHERE id > 0 ORDER BY id");
	int			nchunks = PQntuples(r);
	int		   *xs = calloc(nchunks + 1, sizeof(int)),
			   *zs = calloc(nchunks + 1, sizeof(int)),
			   *seq = malloc(n * sizeof(int));
	double		best[2] = {1e30, 1e30},
				bytes[2] = {0, 0};

	for (int i = 0; i < nchunks; i++)
	{
		int			id = atoi(PQgetvalue(r, i, 0));

		if (id != i + 1)
			die("chunkbench ids are not 1..n", c, NULL);
		xs[id] = atoi(PQgetvalue(r, i, 1));
		zs[id] = atoi(PQgetvalue(r, i, 2));
	}
	PQclear(r);
	for (int i = 0; i < n; i++)
		seq[i] = 1 + (int) (rnd() % nchunks);
	prepare(c, "rd", "SELECT slime_chunk_nbt(world, $2, $3) FROM chunkbench WHERE id = $1", 3);
	/* warm-up: touch every value and the whole big one once */
	chunk_round(c, seq, n < 200 ? n : 200, xs, zs, 1, &bytes[1]);
	chunk_round(c, seq, n < 200 ? n : 200, xs, zs, 0, &bytes[0]);
	for (int round = 0; round < 5; round++)
		for (int big = 1 - (round & 1), m = 0; m < 2; m++, big = 1 - big)
		{
			double		t = chunk_round(c, seq, n, xs, zs, big, &bytes[big]);

			if (t < best[big])
				best[big] = t;
		}
	if (bytes[0] != bytes[1])
		fprintf(stderr, "bench_client: WARNING: the two reads returned different bytes (%.0f vs %.0f)\n",
				bytes[1], bytes[0]);
	printf("%-44s %12s %12s\n", "", "calls/s", "us/call");
	printf("%-44s %12.0f %12.1f\n", "one chunk from the 1024-chunk value", n / best[1], best[1] / n * 1e6);
	printf("%-44s %12.0f %12.1f\n", "one chunk from a 1-chunk value", n / best[0], best[0] / n * 1e6);
	printf("%-44s %12.3f\n", "time ratio 1024-chunk / 1-chunk", best[1] / best[0]);
	printf("%-44s %12.0f\n", "avg chunk NBT bytes returned", bytes[1] / n);
	free(xs);
	free(zs);
	free(seq);
	PQfinish(c);
}

/* ------------------------------------------------------- (ii) islands */

typedef struct island
{
	char	   *data;
	int			len;
} island;

static island *isl;
static int	nisl;
static double run_seconds;

typedef struct worker
{
	int			t,
				nthreads;
	const char *table;
	int			save;
	long		ops;
	double		bytes;
	double		elapsed;
	pthread_barrier_t *barrier;
} worker;

static void *
work(void *arg)
{
	worker	   *w = arg;
	PGconn	   *c = connect_db();
	char		sql[256];
	double		t0,
				end;
	int			k = w->t;

	if (w->save)
		snprintf(sql, sizeof(sql),
				 "INSERT INTO %s (id, world) VALUES ($1, $2) "
				 "ON CONFLICT (id) DO UPDATE SET world = EXCLUDED.world", w->table);
	else
		snprintf(sql, sizeof(sql), "SELECT world FROM %s WHERE id = $1", w->table);
	prepare(c, "op", sql, w->save ? 2 : 1);
	pthread_barrier_wait(w->barrier);
	t0 = now();
	end = t0 + run_seconds;
	while (now() < end)
	{
		char		id[16];
		const char *vals[2] = {id, isl[k].data};
		int			lens[2] = {0, isl[k].len};
		int			fmts[2] = {0, 1};
		PGresult   *r;

		snprintf(id, sizeof(id), "%d", k);
		r = PQexecPrepared(c, "op", w->save ? 2 : 1, vals, lens, fmts, 1);
		if (w->save)
		{
			if (PQresultStatus(r) != PGRES_COMMAND_OK)
				die("island save", c, r);
		}
		else if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1 ||
				 PQgetlength(r, 0, 0) != isl[k].len)
			die("island load (missing row or wrong length)", c, r);
		PQclear(r);
		w->ops++;
		w->bytes += isl[k].len;
		k += w->nthreads;
		if (k >= nisl)
			k = w->t;
	}
	w->elapsed = now() - t0;
	PQfinish(c);
	return NULL;
}

/* One slice: nthreads connections for run_seconds; adds ops, bytes, seconds. */
static void
run_phase(const char *table, int save, int nthreads, double acc[3])
{
	pthread_t  *th = calloc(nthreads, sizeof(pthread_t));
	worker	   *w = calloc(nthreads, sizeof(worker));
	pthread_barrier_t barrier;
	double		el = 0;

	pthread_barrier_init(&barrier, NULL, nthreads);
	for (int t = 0; t < nthreads; t++)
	{
		w[t].t = t;
		w[t].nthreads = nthreads;
		w[t].table = table;
		w[t].save = save;
		w[t].barrier = &barrier;
		pthread_create(&th[t], NULL, work, &w[t]);
	}
	for (int t = 0; t < nthreads; t++)
	{
		pthread_join(th[t], NULL);
		acc[0] += w[t].ops;
		acc[1] += w[t].bytes;
		if (w[t].elapsed > el)
			el = w[t].elapsed;
	}
	acc[2] += el;
	pthread_barrier_destroy(&barrier);
	free(th);
	free(w);
}

/* Take the island values from the first column of a query's binary result. */
static void
load_islands_sql(const char *query, double *total, int *minlen, int *maxlen)
{
	PGconn	   *c = connect_db();
	PGresult   *r = PQexecParams(c, query, 0, NULL, NULL, NULL, NULL, 1);

	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		die(query, c, r);
	for (int i = 0; i < PQntuples(r); i++)
	{
		int			len = PQgetlength(r, i, 0);

		isl = realloc(isl, (nisl + 1) * sizeof(island));
		isl[nisl].data = malloc(len);
		isl[nisl].len = len;
		memcpy(isl[nisl].data, PQgetvalue(r, i, 0), len);
		*total += len;
		if (len < *minlen)
			*minlen = len;
		if (len > *maxlen)
			*maxlen = len;
		nisl++;
	}
	PQclear(r);
	PQfinish(c);
}

static void
cmd_islands(const char *path, double seconds, int nthreads)
{
	FILE	   *f = strncmp(path, "sql:", 4) == 0 ? NULL : fopen(path, "rb");
	PGconn	   *c;
	double		total = 0;
	unsigned char lenb[4];
	double		res[2][2][2];	/* [save][slime=0,bytea=1][ops,mb] */
	int			minlen = 1 << 30,
				maxlen = 0;

	if (strncmp(path, "sql:", 4) == 0)
		load_islands_sql(path + 4, &total, &minlen, &maxlen);
	else if (f == NULL)
	{
		fprintf(stderr, "bench_client: cannot open %s\n", path);
		exit(2);
	}
	while (f != NULL && fread(lenb, 1, 4, f) == 4)
	{
		int			len = lenb[0] | lenb[1] << 8 | lenb[2] << 16 | lenb[3] << 24;

		isl = realloc(isl, (nisl + 1) * sizeof(island));
		isl[nisl].data = malloc(len);
		isl[nisl].len = len;
		if (fread(isl[nisl].data, 1, len, f) != (size_t) len)
		{
			fprintf(stderr, "bench_client: %s is truncated\n", path);
			exit(2);
		}
		total += len;
		if (len < minlen)
			minlen = len;
		if (len > maxlen)
			maxlen = len;
		nisl++;
	}
	if (f != NULL)
		fclose(f);
	if (nisl < nthreads)
	{
		fprintf(stderr, "bench_client: %s holds %d values\n", path, nisl);
		exit(2);
	}
	run_seconds = seconds;

	c = connect_db();
	PQclear(exec_ok(c, "DROP TABLE IF EXISTS islands, islands_bytea"));
	PQclear(exec_ok(c, "CREATE TABLE islands (id int PRIMARY KEY, world slime)"));
	PQclear(exec_ok(c, "CREATE TABLE islands_bytea (id int PRIMARY KEY, world bytea)"));
	/* same bytes in both: the slime value's own bytes (world::bytea) */
	PQclear(exec_ok(c, "ALTER TABLE islands_bytea ALTER COLUMN world SET STORAGE EXTERNAL"));
	PQfinish(c);

	/* first fill (not timed), then the timed phases */
	run_seconds = 0;
	for (int t = 0; t < 2; t++)
	{
		PGconn	   *cc = connect_db();
		char		sql[128];

		snprintf(sql, sizeof(sql), "INSERT INTO %s (id, world) VALUES ($1, $2)",
				 t == 0 ? "islands" : "islands_bytea");
		prepare(cc, "ins", sql, 2);
		for (int k = 0; k < nisl; k++)
		{
			char		id[16];
			const char *vals[2] = {id, isl[k].data};
			int			lens[2] = {0, isl[k].len};
			int			fmts[2] = {0, 1};
			PGresult   *r;

			snprintf(id, sizeof(id), "%d", k);
			r = PQexecPrepared(cc, "ins", 2, vals, lens, fmts, 1);
			if (PQresultStatus(r) != PGRES_COMMAND_OK)
				die("island fill", cc, r);
			PQclear(r);
		}
		PQfinish(cc);
	}
	c = connect_db();
	PQclear(exec_ok(c, "VACUUM ANALYZE islands"));
	PQclear(exec_ok(c, "VACUUM ANALYZE islands_bytea"));
	{
		PGresult   *r = exec_ok(c, "SELECT count(*) FROM islands i JOIN islands_bytea b USING (id) "
								"WHERE i.world::bytea = b.world");

		if (atoi(PQgetvalue(r, 0, 0)) != nisl)
			die("islands and islands_bytea do not hold the same bytes", c, NULL);
		PQclear(r);
	}
	PQfinish(c);
	run_seconds = seconds;

	/*
	 * Saves, then loads. Slime and bytea alternate in slices of about one
	 * second, so that whatever else the machine does hits both alike; a
	 * VACUUM before each save slice so that no slice pays for the dead
	 * tuples of the one before.
	 */
	{
		int			nslices = seconds >= 2 ? (int) (seconds + 0.5) : 1;

		run_seconds = seconds / nslices;
		for (int save = 1; save >= 0; save--)
		{
			double		acc[2][3] = {{0}};

			for (int sl = 0; sl < nslices; sl++)
				for (int b = 0; b < 2; b++)
				{
					if (save || sl == 0)
					{
						c = connect_db();
						PQclear(exec_ok(c, "VACUUM islands"));
						PQclear(exec_ok(c, "VACUUM islands_bytea"));
						PQfinish(c);
					}
					/* bytea first in odd slices: neither always goes first */
					run_phase((b ^ (sl & 1)) ? "islands_bytea" : "islands", save, nthreads,
							  acc[b ^ (sl & 1)]);
				}
			for (int b = 0; b < 2; b++)
			{
				res[save][b][0] = acc[b][0] / acc[b][2];
				res[save][b][1] = acc[b][1] / 1e6 / acc[b][2];
			}
		}
	}

	printf("   %d island values, avg %.0f bytes (%d-%d), %d client threads, %.0f s per cell\n"
		   "   in 1-s slices alternating slime and bytea\n\n",
		   nisl, total / nisl, minlen, maxlen, nthreads, seconds);
	printf("%-34s %11s %11s %11s %11s %11s\n", "", "slime op/s", "bytea op/s", "slime/bytea",
		   "slime MB/s", "bytea MB/s");
	for (int save = 1; save >= 0; save--)
		printf("%-34s %11.0f %11.0f %11.3f %11.1f %11.1f\n",
			   save ? "save (INSERT .. ON CONFLICT)" : "load (SELECT world WHERE id)",
			   res[save][0][0], res[save][1][0], res[save][0][0] / res[save][1][0],
			   res[save][0][1], res[save][1][1]);
}

/* ------------------------------------------------------- (iii) hwm */

static long
vm_hwm_kb(int pid)
{
	char		path[64],
				line[256];
	FILE	   *f;
	long		kb = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kb = atol(line + 6);
	fclose(f);
	return kb;
}

static void
cmd_hwm(const char *file, const char *rx, const char *rz)
{
	PGconn	   *c = connect_db();
	PGresult   *r;
	const char *p1[1] = {file};
	const char *p3[3] = {file, rx, rz};
	int			pid;
	long		h0,
				h1,
				h2;
	double		file_len;
	char		info[512];

	r = exec_ok(c, "SELECT pg_backend_pid()");
	pid = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	h0 = vm_hwm_kb(pid);
	/* load the library and read the file once, so the baseline includes both */
	PQclear(exec_ok(c, "LOAD '$libdir/slime'"));
	r = PQexecParams(c, "SELECT octet_length(pg_read_binary_file($1))", 1, NULL, p1, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		die("pg_read_binary_file", c, r);
	file_len = atof(PQgetvalue(r, 0, 0));
	PQclear(r);
	h1 = vm_hwm_kb(pid);
	r = PQexecParams(c,
					 "SELECT pg_column_size(v), slime_info(v)->>'raw_bytes', slime_info(v)->>'chunks' "
					 "FROM (SELECT slime_import_region(pg_read_binary_file($1), $2::int, $3::int) AS v "
					 "OFFSET 0) s",
					 3, NULL, p3, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		die("slime_import_region", c, r);
	h2 = vm_hwm_kb(pid);
	snprintf(info, sizeof(info), "%s chunks, %s bytes raw NBT -> %s bytes value",
			 PQgetvalue(r, 0, 2), PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 0));
	if (h0 < 0 || h1 < 0 || h2 < 0)
	{
		fprintf(stderr, "bench_client: cannot read /proc/%d/status (run as root on the server host)\n", pid);
		exit(2);
	}
	printf("   %s\n", file);
	printf("   %.0f bytes file, %s\n\n", file_len, info);
	printf("%-48s %12s\n", "", "kB");
	printf("%-48s %12ld\n", "VmHWM of the fresh backend", h0);
	printf("%-48s %12ld\n", "VmHWM baseline (library loaded, file read once)", h1);
	printf("%-48s %12ld\n", "VmHWM after slime_import_region", h2);
	printf("%-48s %12ld\n", "growth over the baseline", h2 - h1);
	printf("%-48s %12.3f\n", "growth / raw NBT bytes of the region",
		   (h2 - h1) * 1024.0 / atof(PQgetvalue(r, 0, 1)));
	PQclear(r);
	PQfinish(c);
}

/* ------------------------------------------------------- (iv) scan */

static void
time_query(PGconn *c, const char *label, const char *fn, const char *sql, double base)
{
	double		best = 1e30;
	PGresult   *r = NULL;
	char		rows[32] = "";
	const char *pv[1] = {fn};

	r = PQexecParams(c, "SELECT EXISTS (SELECT FROM pg_proc WHERE proname = $1)", 1, NULL, pv, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		die("pg_proc lookup", c, r);
	if (strcmp(PQgetvalue(r, 0, 0), "t") != 0)
	{
		printf("%-44s n/a (issue 5): does not exist yet\n", label);
		PQclear(r);
		return;
	}
	PQclear(r);

	for (int i = 0; i < 3; i++)
	{
		double		t0 = now();

		r = PQexec(c, sql);
		if (PQresultStatus(r) != PGRES_TUPLES_OK)
		{
			const char *m = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);

			printf("%-44s error: %s\n", label, m ? m : "?");
			PQclear(r);
			return;
		}
		if (now() - t0 < best)
			best = now() - t0;
		snprintf(rows, sizeof(rows), "%s", PQgetvalue(r, 0, 0));
		PQclear(r);
	}
	printf("%-44s %12s %12.1f %12.3f\n", label, rows, best * 1e3, best * 1e3 / base);
}

static void
cmd_scan(void)
{
	PGconn	   *c = connect_db();
	PGresult   *r = exec_ok(c, "SELECT count(*), sum(pg_column_size(world)) FROM corpus");
	double		best = 1e30;

	printf("   %s corpus values, %s bytes\n\n", PQgetvalue(r, 0, 0), PQgetvalue(r, 0, 1));
	PQclear(r);
	printf("%-44s %12s %12s %12s\n", "", "rows", "ms (best 3)", "/slime_chunks");
	for (int i = 0; i < 3; i++)
	{
		double		t0 = now();

		r = exec_ok(c, "SELECT count(*) FROM corpus c, LATERAL slime_chunks(c.world)");
		if (now() - t0 < best)
			best = now() - t0;
		if (i == 2)
			printf("%-44s %12s %12.1f %12.3f\n", "slime_chunks (decompression only)",
				   PQgetvalue(r, 0, 0), best * 1e3, 1.0);
		PQclear(r);
	}
	time_query(c, "slime_block_counts", "slime_block_counts",
			   "SELECT count(*) FROM corpus c, LATERAL slime_block_counts(c.world)", best * 1e3);
	time_query(c, "slime_block_entities", "slime_block_entities",
			   "SELECT count(*) FROM corpus c, LATERAL slime_block_entities(c.world)", best * 1e3);
	PQfinish(c);
}

/* ------------------------------------------------ copy (bench_store.sh) */

static void
put_be32(char *p, uint32_t v)
{
	p[0] = (char) (v >> 24);
	p[1] = (char) (v >> 16);
	p[2] = (char) (v >> 8);
	p[3] = (char) v;
}

static void
copy_put(PGconn *c, const char *buf, size_t len)
{
	if (PQputCopyData(c, buf, (int) len) != 1)
		die("COPY data", c, NULL);
}

static void
cmd_copy(const char *table, const char *path, long first, long last)
{
	FILE	   *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	PGconn	   *c = connect_db();
	PGresult   *r;
	char		sql[256],
				hdr[19 + 4] = "PGCOPY\n\377\r\n";
	unsigned char lenb[4];
	char	   *val = NULL;
	size_t		cap = 0;
	long		i = 0,
				rows = 0;
	double		bytes = 0,
				t0 = now();

	if (f == NULL)
	{
		fprintf(stderr, "bench_client: cannot open %s\n", path);
		exit(2);
	}
	snprintf(sql, sizeof(sql), "COPY %s (id, world) FROM STDIN (FORMAT binary)", table);
	r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COPY_IN)
		die(sql, c, r);
	PQclear(r);
	memset(hdr + 11, 0, 8);		/* flags, header extension length */
	copy_put(c, hdr, 19);
	while (fread(lenb, 1, 4, f) == 4)
	{
		uint32_t	len = lenb[0] | lenb[1] << 8 | lenb[2] << 16 | (uint32_t) lenb[3] << 24;
		char		row[14];

		if (len + 14 > cap)
		{
			cap = (len + 14) * 2;
			val = realloc(val, cap);
			if (val == NULL)
			{
				fprintf(stderr, "bench_client: out of memory\n");
				exit(2);
			}
		}
		if (fread(val + 14, 1, len, f) != len)
		{
			fprintf(stderr, "bench_client: %s: value %ld is truncated\n", path, i);
			exit(2);
		}
		if (i >= first && (last < 0 || i <= last))
		{
			/* field count, id (int4), value */
			row[0] = 0;
			row[1] = 2;
			put_be32(row + 2, 4);
			put_be32(row + 6, (uint32_t) i);
			put_be32(row + 10, len);
			memcpy(val, row, 14);
			copy_put(c, val, len + 14);
			rows++;
			bytes += len;
		}
		i++;
	}
	if (ferror(f))
	{
		fprintf(stderr, "bench_client: cannot read %s\n", path);
		exit(2);
	}
	copy_put(c, "\377\377", 2);
	if (PQputCopyEnd(c, NULL) != 1)
		die("COPY end", c, NULL);
	r = PQgetResult(c);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		die(sql, c, r);
	PQclear(r);
	printf("%ld %.0f %.3f\n", rows, bytes, now() - t0);
	free(val);
	if (f != stdin)
		fclose(f);
	PQfinish(c);
}

/* Compare doubles for qsort. */
static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

/* Time one call of a prepared statement (binary results), in ms. */
static double
timed_call(PGconn *c, const char *stmt, int n, const char *const *params)
{
	double		t0 = now();
	PGresult   *r = PQexecPrepared(c, stmt, n, params, NULL, NULL, 1);

	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1 || PQgetisnull(r, 0, 0))
		die(stmt, c, r);
	PQclear(r);
	return (now() - t0) * 1e3;
}

/* Floor division. */
static long
floor_div(long a, long b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* CPU time (user + system) a process has used, in ms; -1 when unknown. */
static double
cpu_ms(int pid)
{
	char		path[64],
				buf[1024],
			   *p;
	unsigned long ut,
				st;
	FILE	   *f;
	size_t		n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* fields 14 and 15, counted after the ")" that ends the command name */
	if ((p = strrchr(buf, ')')) == NULL ||
		sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (ut + st) * 1000.0 / sysconf(_SC_CLK_TCK);
}

/* Median of n values (sorts them). */
static double
median(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return v[n / 2];
}

static void
cmd_tiles(int rounds, int zoom)
{
	PGconn	   *c = connect_db();
	PGresult   *w;
	long		span = 256L << -zoom;
	char		zs[16];

	snprintf(zs, sizeof(zs), "%d", zoom);
	prepare(c, "tile", "SELECT slime_render_tile(world, $4::int, $2::int, $3::int) FROM tilebench WHERE name = $1", 4);
	prepare(c, "hash", "SELECT slime_content_hash(world) FROM tilebench WHERE name = $1", 1);
	prepare(c, "whole", "SELECT slime_render_map(world) FROM tilebench WHERE name = $1", 1);
	w = exec_ok(c, "SELECT name, (i->>'chunks')::int, (i->'bounds'->>'min_x')::int, (i->'bounds'->>'min_z')::int,"
				" (i->'bounds'->>'max_x')::int, (i->'bounds'->>'max_z')::int"
				" FROM (SELECT name, slime_info(world) i FROM tilebench) s ORDER BY name");
	printf("%-58s %6s %5s %9s %9s %9s %9s %9s %7s %9s\n", "world", "chunks", "tiles", "tile med", "densest",
		   "dens CPU", "worst", "baseline", "med/bas", "whole map");
	for (int k = 0; k < PQntuples(w); k++)
	{
		const char *name = PQgetvalue(w, k, 0);
		/* slime_info's bounds are chunks */
		long		x0 = floor_div(atol(PQgetvalue(w, k, 2)) * 16, span),
					z0 = floor_div(atol(PQgetvalue(w, k, 3)) * 16, span),
					x1 = floor_div(atol(PQgetvalue(w, k, 4)) * 16 + 15, span),
					z1 = floor_div(atol(PQgetvalue(w, k, 5)) * 16 + 15, span);
		int			ntiles = (int) ((x1 - x0 + 1) * (z1 - z0 + 1));
		double	   *tile = malloc(sizeof(double) * ntiles * rounds),	/* [tile][round] */
				   *per = malloc(sizeof(double) * ntiles),
				   *base = malloc(sizeof(double) * ntiles * rounds),
				   *whole = malloc(sizeof(double) * rounds),
					worst = 0;

		for (int r = 0; r < rounds; r++)
		{
			const char *p1[1] = {name};
			int			t = 0;

			whole[r] = timed_call(c, "whole", 1, p1);
			for (long ty = z0; ty <= z1; ty++)
				for (long tx = x0; tx <= x1; tx++, t++)
				{
					char		xs[24],
								ys[24];
					const char *p[4] = {name, xs, ys, zs};

					snprintf(xs, sizeof(xs), "%ld", tx);
					snprintf(ys, sizeof(ys), "%ld", ty);
					tile[t * rounds + r] = timed_call(c, "tile", 4, p);
					base[t * rounds + r] = timed_call(c, "hash", 1, p);
					if (tile[t * rounds + r] > worst)
						worst = tile[t * rounds + r];
				}
		}
		/* each tile's median over the rounds; then the median tile and the densest */
		for (int t = 0; t < ntiles; t++)
			per[t] = median(tile + t * rounds, rounds);
		{
			int			dense = 0;
			long		dx,
						dy;
			char		xs[24],
						ys[24];
			const char *p[4] = {name, xs, ys, zs};
			double		c0,
						bmed,
						tmed,
						wmed;
			int			calls = 10 * rounds;

			for (int t = 1; t < ntiles; t++)
				if (per[t] > per[dense])
					dense = t;
			dx = x0 + dense % (x1 - x0 + 1);
			dy = z0 + dense / (x1 - x0 + 1);
			snprintf(xs, sizeof(xs), "%ld", dx);
			snprintf(ys, sizeof(ys), "%ld", dy);
			/* the backend's CPU time for the densest tile: what load on a shared machine does not inflate */
			c0 = cpu_ms(PQbackendPID(c));
			for (int r = 0; r < calls; r++)
				timed_call(c, "tile", 4, p);
			c0 = (cpu_ms(PQbackendPID(c)) - c0) / calls;
			median(per, ntiles);
			bmed = median(base, ntiles * rounds);
			tmed = per[ntiles / 2];
			wmed = median(whole, rounds);
			printf("%-58s %6s %5d %6.2f ms %6.2f ms %6.2f ms %6.2f ms %6.2f ms %6.1fx %6.2f ms\n", name,
				   PQgetvalue(w, k, 1), ntiles, tmed, per[ntiles - 1], c0, worst, bmed, tmed / bmed, wmed);
		}
		free(tile);
		free(per);
		free(base);
		free(whole);
	}
	PQclear(w);
	PQfinish(c);
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && strcmp(argv[1], "chunkread") == 0)
		cmd_chunkread(atoi(argv[2]));
	else if (argc == 5 && strcmp(argv[1], "islands") == 0)
		cmd_islands(argv[2], atof(argv[3]), atoi(argv[4]));
	else if (argc == 5 && strcmp(argv[1], "hwm") == 0)
		cmd_hwm(argv[2], argv[3], argv[4]);
	else if (argc == 2 && strcmp(argv[1], "scan") == 0)
		cmd_scan();
	else if ((argc == 5 || argc == 6) && strcmp(argv[1], "copy") == 0)
		cmd_copy(argv[2], argv[3], atol(argv[4]), argc == 6 ? atol(argv[5]) : -1);
	else if (argc == 4 && strcmp(argv[1], "tiles") == 0)
		cmd_tiles(atoi(argv[2]), atoi(argv[3]));
	else
	{
		fprintf(stderr, "usage: bench_client chunkread N | islands FILE SECONDS THREADS |"
				" hwm FILE RX RZ | scan | copy TABLE FILE FIRST [LAST] | tiles ROUNDS ZOOM\n");
		return 2;
	}
	return 0;
}
