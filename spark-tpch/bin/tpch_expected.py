#!/usr/bin/env python3
"""Compute the expected TPC-H answers with DuckDB, in a canonical text form.

Usage:
    tpch_expected.py --data DIR --queries QUERY_DIR --out OUT_DIR [--only q01,q06]

Needs the `duckdb` Python package (e.g. a venv with `pip install duckdb`).

Input
-----
DIR holds the Parquet files as `tpchgen-cli parquet` writes them.  For each of
the eight tables (region, nation, supplier, customer, part, partsupp, orders,
lineitem) either layout is accepted:

  * DIR/<table>/*.parquet   (written with --parts N, e.g. DIR/lineitem/lineitem.3.parquet;
                             tpchgen-cli uses this layout for every table, even
                             the one-file tables nation and region)
  * DIR/<table>.parquet     (written without --parts)

One DuckDB view per table is created over its files.  Every QUERY_DIR/qNN.sql
(one SELECT statement each, no trailing semicolon) is run in name order.

Output
------
OUT_DIR/qNN.tsv for each query: one line per result row, in the query's
order, each line ended by "\\n" (also the last); an empty result gives an
empty file.  Fields are separated by one TAB.  Each value is written as:

  * SQL NULL                  -> \\N  (backslash, capital N)
  * string                    -> the string as is (UTF-8). TPC-H data holds
                                 no TAB, CR, LF or backslash; the script stops
                                 with an error if a value has TAB, CR or LF.
  * boolean                   -> true / false
  * integer (any width)       -> decimal digits, '-' if negative, no
                                 leading zeros, no '+', no grouping
  * decimal or floating point -> the exact value of the number (for a double:
                                 its exact binary value, i.e. Java's
                                 `new BigDecimal(double)`, not Double.toString)
                                 rounded HALF_UP to 2 places and written in
                                 plain notation with exactly 2 digits after
                                 the point, never an exponent; a result that
                                 rounds to zero is written "0.00" (no "-0.00").
                                 NaN / +inf / -inf are written NaN / Infinity /
                                 -Infinity.
                                 Java: v.setScale(2, RoundingMode.HALF_UP)
                                        .toPlainString()
                                 (BigDecimal has no negative zero, so this
                                 gives "0.00" as well).
  * date                      -> YYYY-MM-DD
  * timestamp                 -> YYYY-MM-DD HH:MM:SS[.ffffff] (unused by TPC-H)

Which SQL type a column has does not matter, only the kind of its value: the
two engines type some results differently (DuckDB gives DOUBLE for avg() and
for decimal division and BIGINT for extract(year ...); Spark gives DECIMAL and
INT there), and all of those end up in the same text form.

Comparison (Java side)
----------------------
The Java side writes Spark's rows with these same rules, then compares
tolerantly, not byte for byte: the rows must come in the same order and have
the same number of fields; two fields that both parse as numbers (written as
above) are equal when |a - b| <= max(1e-12 * |a|, 0.01), which
absorbs DuckDB computing some aggregates in double precision where Spark uses
decimal, and a 2-place rounding that falls either way at a boundary; all other
fields (strings, dates, \\N) must be equal exactly.
"""

import argparse
import datetime
import decimal
import math
import os
import sys
import time

TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]

NULL = "\\N"
TWO_PLACES = decimal.Decimal("0.01")
# Enough digits for any DECIMAL(38, s), HUGEINT or finite double (< 1.8e308), so quantize never traps.
WIDE = decimal.Context(prec=400)


def fail(msg):
    print(f"tpch_expected.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


def table_files(data_dir, table):
    """The Parquet files of one table, in either of tpchgen-cli's layouts."""
    sub = os.path.join(data_dir, table)
    if os.path.isdir(sub):
        files = sorted(
            os.path.join(sub, f) for f in os.listdir(sub) if f.endswith(".parquet")
        )
        if files:
            return files
    single = os.path.join(data_dir, table + ".parquet")
    if os.path.isfile(single):
        return [single]
    fail(f"no Parquet files for table {table!r}: expected {sub}/*.parquet or {single}")


def sql_string(s):
    return "'" + s.replace("'", "''") + "'"


def canonical_number(d):
    """decimal.Decimal -> plain text rounded HALF_UP to 2 places."""
    q = d.quantize(TWO_PLACES, rounding=decimal.ROUND_HALF_UP, context=WIDE)
    if q.is_zero():
        return "0.00"
    return format(q, "f")


def canonical(v):
    if v is None:
        return NULL
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, decimal.Decimal):
        if v.is_nan():
            return "NaN"
        if v.is_infinite():
            return "Infinity" if v > 0 else "-Infinity"
        return canonical_number(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        # Decimal(float) is the exact binary value, like Java's new BigDecimal(double).
        return canonical_number(decimal.Decimal(v))
    if isinstance(v, datetime.datetime):
        return v.isoformat(sep=" ")
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, str):
        if "\t" in v or "\n" in v or "\r" in v:
            raise ValueError(f"string value has a TAB or line break: {v!r}")
        return v
    raise ValueError(f"value of unsupported type {type(v).__name__}: {v!r}")


def main():
    ap = argparse.ArgumentParser(description="Expected TPC-H answers from DuckDB as canonical TSV.")
    ap.add_argument("--data", required=True, help="directory with the tpchgen-cli Parquet output")
    ap.add_argument("--queries", required=True, help="directory with q01.sql .. q22.sql")
    ap.add_argument("--out", required=True, help="directory to write qNN.tsv into")
    ap.add_argument("--only", help="comma-separated query names to run, e.g. q01,q06 (default: all)")
    args = ap.parse_args()

    try:
        import duckdb
    except ImportError:
        fail("the duckdb Python package is not installed in this interpreter")

    if not os.path.isdir(args.data):
        fail(f"data directory not found: {args.data}")
    if not os.path.isdir(args.queries):
        fail(f"query directory not found: {args.queries}")

    queries = sorted(
        f[:-4] for f in os.listdir(args.queries) if f.startswith("q") and f.endswith(".sql")
    )
    if args.only:
        wanted = [q.strip() for q in args.only.split(",") if q.strip()]
        missing = [q for q in wanted if q not in queries]
        if missing:
            fail(f"no such query file(s) in {args.queries}: {', '.join(missing)}")
        queries = [q for q in queries if q in wanted]
    if not queries:
        fail(f"no q*.sql files in {args.queries}")

    os.makedirs(args.out, exist_ok=True)
    con = duckdb.connect()
    for table in TABLES:
        files = ", ".join(sql_string(f) for f in table_files(args.data, table))
        con.execute(f"create view {table} as select * from read_parquet([{files}])")

    for name in queries:
        path = os.path.join(args.queries, name + ".sql")
        with open(path, encoding="utf-8") as fh:
            sql = fh.read()
        start = time.monotonic()
        try:
            rows = con.execute(sql).fetchall()
        except Exception as e:  # duckdb raises several exception classes
            fail(f"query {name} ({path}) failed in DuckDB: {e}")
        elapsed = time.monotonic() - start
        out_path = os.path.join(args.out, name + ".tsv")
        try:
            lines = ["\t".join(canonical(v) for v in row) + "\n" for row in rows]
        except ValueError as e:
            fail(f"query {name}: {e}")
        with open(out_path, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(lines)
        print(f"{name}: {len(rows)} rows, {elapsed:.2f} s -> {out_path}")


if __name__ == "__main__":
    main()
