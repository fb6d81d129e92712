"""Run every benchmark and print one line per measurement."""

from __future__ import annotations

import argparse
import importlib.util
import sys

from bench.report import print_line as report


def scale(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench scale")
    parser.add_argument("--submissions", type=int, default=200_000, help="history to fill")
    args = parser.parse_args(argv)
    from bench import scale as scale_bench

    print(f"== a course's history (python -m bench scale --submissions {args.submissions})")
    scale_bench.run(report, submissions=args.submissions)
    return 0


def main() -> int:
    if sys.argv[1:2] == ["scale"]:  # not part of a plain run: it fills a database for minutes
        return scale(sys.argv[2:])
    parser = argparse.ArgumentParser(prog="python -m bench", epilog="python -m bench scale -h")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions per measurement")
    parser.add_argument(
        "--only",
        choices=(
            "judge",
            "languages",
            "packages",
            "service",
            "load",
            "burst",
            "workers",
            "phases",
            "similarity",
            "chaos",
        ),
        help="run one group",
    )
    args = parser.parse_args()

    if args.only in (None, "judge"):
        from bench import judge_bench

        print("== grading core (python -m bench --only judge)")
        judge_bench.run(report, repeat=args.repeat)
    if args.only in (None, "languages"):
        from bench import languages

        print("== languages (python -m bench --only languages)")
        languages.run(report, repeat=min(args.repeat, 3))
    if args.only in (None, "packages"):
        from bench import packages

        print("== problem packages (python -m bench --only packages)")
        packages.run(report, repeat=args.repeat)
    if args.only in (None, "service") and importlib.util.find_spec("bench.service"):
        from bench import service

        print("== service (python -m bench --only service)")
        service.run(report)
    if args.only in (None, "load"):
        from bench import service_load

        print("== service under floods (python -m bench --only load)")
        service_load.run(report)
    if args.only in (None, "burst"):
        from bench import burst

        print("== a 300-submission burst on PostgreSQL + Redis (python -m bench --only burst)")
        burst.run(report)
        print("== the same from 30 students of 10 each (python -m bench --only burst)")
        burst.run_class(report)
    if args.only in (None, "phases"):
        from bench import phases

        print("== the phase lock (python -m bench --only phases)")
        phases.run(report)
    if args.only in (None, "workers"):
        from bench import scaling

        print("== workers on one PostgreSQL + Redis (python -m bench --only workers)")
        scaling.run(report)
    if args.only in (None, "similarity"):
        from bench import similarity

        print("== code similarity: quality, Dolos beside it, the index (--only similarity)")
        similarity.run(report)
    if args.only in (None, "chaos"):
        from bench import chaos

        print("== faults: kills, a stopped worker, Redis, PostgreSQL, a full disk (--only chaos)")
        chaos.run(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
