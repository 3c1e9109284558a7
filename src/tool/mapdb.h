/*
 * mapdb.h - the database side of slimetool map-server: its three queries
 * (identifiers quoted once, the extension's schema named, every value a
 * parameter), a pool of libpq connections (one per database worker), each
 * session read-only with a statement timeout, reconnected when lost.
 */
#ifndef MAPDB_H
#define MAPDB_H

#include <pthread.h>

#include <libpq-fe.h>

typedef struct map_db
{
	const char *dsn;
	int			timeout_s;		/* statement_timeout of every session */
	char	   *q_hash;			/* $1, $2 key: the content hash, hex */
	char	   *q_tile;			/* $1, $2 key, $3..$5 z x y: hash and tile (binary) */
	char	   *q_worlds;		/* $1 after (or NULL), $2 limit */
	int			nconn;
	PGconn	  **conns;
	int		   *busy;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} map_db;

/*
 * Build the queries over table (schema.table allowed), key and column and
 * check them against the database; nconn connections, each with a
 * statement timeout of timeout_s; 0 ok, else a message on stderr.
 */
int			map_db_open(map_db *db, const char *dsn, const char *table, const char *key,
						const char *column, int nconn, int timeout_s);

/* A connection of the pool (waits for a free one; NULL when it cannot connect); its slot in *slot. */
PGconn	   *map_db_get(map_db *db, int *slot);

/* Give a connection back. */
void		map_db_put(map_db *db, int slot);

/* Run a parameterised query (a lost connection: reconnect, once more); NULL without a connection. */
PGresult   *map_db_query(map_db *db, PGconn *c, const char *sql, int n, const char *const *params,
						 int binary);

/* 1 when a failed query's SQLSTATE says the key does not fit the key column's type (a 404). */
int			map_db_bad_key(const PGresult *r);

/* 1 when a query failed for the statement timeout (a 503). */
int			map_db_timed_out(const PGresult *r);

void		map_db_close(map_db *db);

#endif
