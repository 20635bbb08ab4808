/* export_clickhouse.h — a trace set as rows for ClickHouse (docs/clickhouse.sql):
 * one block per table, each an INSERT statement's first line
 * ("INSERT INTO db.table FORMAT JSONEachRow"), its rows one JSON object a
 * line, and an empty line; the runs block comes last, so that a run's row
 * exists only once all its other rows were loaded (seektrace load). A block
 * is exactly the body of one POST to ClickHouse's HTTP interface. */
#ifndef SEEKTRACE_EXPORT_CLICKHOUSE_H
#define SEEKTRACE_EXPORT_CLICKHOUSE_H

#include <stdint.h>
#include <stdio.h>

/* The run id of a trace set: 32 hex digits from every trace's host, pid
 * and start times, whatever their order, so that exporting the same traces
 * again gives the same id (loads are idempotent per run id). Exits 2 when
 * a trace cannot be read. */
void clickhouse_run_id(char **paths, size_t n, char id[33]);

/* Whether name is a database name these blocks can hold unquoted:
 * 1 to 64 of [A-Za-z0-9_], not starting with a digit. */
int clickhouse_database_ok(const char *name);

/* Writes the blocks of the traces in paths (one run) for database db, the
 * tables' names followed by suffix ("": the tables, "_dist": their
 * Distributed variants).
 * Exits 2 on a trace that cannot be read. Returns the rows written. */
uint64_t clickhouse_export(FILE *out, char **paths, size_t n, const char *db,
                           const char *suffix);

/* cmd_export.c: the events of the traces as rows of db.events (one block),
 * each with run_id and host. Returns the rows written. */
uint64_t export_events_clickhouse(FILE *out, char **paths, size_t n, const char *db,
                                  const char *suffix, const char *run_id);

#endif
