"""Fingerprinting speed as whole processes, side by side with Chromaprint's fpcalc (#44's measure).

    python3 scripts/whole_process_speed.py [--rounds N] [--algorithms A ...] [--fpbench PATH] -- FILE ...

One process per file and algorithm (`fpbench fingerprint -a A FILE`, start-up, decoding and resampling
included) and one `fpcalc -length 0 FILE` per file (-length 0: the whole file, not its first 120 s), each
round alternating between them in the same order. A process's figure is its own user + system CPU time and
peak resident memory, from the kernel (wait4), so the machine's other load does not count. Prints, per
algorithm, the median over the rounds of the CPU seconds summed over the files, its ratio to fpcalc's
(fpcalc's time over ours: above 1, ours is faster) and the largest peak memory of any one process.
"""
import argparse, os, statistics, subprocess, sys, tempfile

def measured(argv):
    """(CPU seconds, peak resident MB) of one process. fpcalc exits 3 on some valid Ogg files ("Error decoding
    audio frame (End of file)") after printing the whole fingerprint: a run counts when it printed one."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(argv, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        out.seek(0); err.seek(0)
        printed, errors = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code != 0 and not (argv[0] == "fpcalc" and "FINGERPRINT=" in printed):
        sys.exit(f"whole_process_speed: {' '.join(argv)} exited {code}: {errors.strip()[-300:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--algorithms", nargs="+", default=["constellation", "haitsma-kalker", "panako", "waveprint"])
    parser.add_argument("--fpbench", default=".build/release/fpbench")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    missing = [f for f in args.files if not os.path.isfile(f)]
    if missing:
        sys.exit(f"whole_process_speed: no such file: {', '.join(missing)}")
    if args.rounds < 1:
        sys.exit("whole_process_speed: --rounds must be at least 1")
    commands = {"fpcalc": lambda f: ["fpcalc", "-length", "0", f]}
    for a in args.algorithms:
        commands[a] = lambda f, a=a: [args.fpbench, "fingerprint", "-a", a, f]
    seconds = {name: [] for name in commands}
    peak = {name: 0.0 for name in commands}
    for _ in range(args.rounds):
        for name, command in commands.items():
            total = 0.0
            for f in args.files:
                cpu, mb = measured(command(f))
                total += cpu
                peak[name] = max(peak[name], mb)
            seconds[name].append(total)
    reference = statistics.median(seconds["fpcalc"])
    print(f"{len(args.files)} files, one process each, median of {args.rounds} alternating rounds (CPU s = user + system)\n")
    print("| program | CPU s | × fpcalc | peak MB |")
    print("|---|---:|---:|---:|")
    for name in commands:
        median = statistics.median(seconds[name])
        ratio = "" if name == "fpcalc" else f"{reference / median:.2f}"
        print(f"| {name} | {median:.2f} | {ratio} | {peak[name]:.0f} |")

if __name__ == "__main__":
    main()
