"""Fingerprinting speed as whole processes, side by side with Chromaprint's fpcalc (#44's measure).

    python3 scripts/whole_process_speed.py [--rounds N] [--algorithms A ...] [--fpbench PATH] -- FILE ...

One process per file and algorithm (`fpbench fingerprint -a A FILE`, start-up, decoding and resampling
included) and one `fpcalc -length 0 FILE` per file (-length 0: the whole file, not its first 120 s), each
round alternating between them in the same order. A process's figure is its own user + system CPU time and
peak resident memory, from the kernel (wait4), so the machine's other load does not count. Prints, per
algorithm, the median over the rounds of the CPU seconds summed over the files, its ratio to fpcalc's
(fpcalc's time over ours: above 1, ours is faster) and the largest peak memory of any one process.

--floors (needs Debian's linux-perf) also samples one more process per file and algorithm with `perf record`
and splits its samples by where they fell (`part`): an algorithm's floor is the work it cannot avoid, decoding
(the decoders' libraries and the kernel's reading of the file) plus resampling (soxr) plus its transforms at
its published frame rate (FFTW; for a learned fingerprint also its matrix products). "x floor" is the whole
process over its floor: 1.00 would mean nothing but that work; the rest is our code, start-up and the runtime.
"""
import argparse, collections, os, re, statistics, subprocess, sys, tempfile

# Where a sample fell: the shared object, or for our own binary and the kernel the function (the matrix products
# are ours, in C; of the kernel's time only reading the file counts as decoding, not page faults or scheduling).
DECODERS = re.compile(r"^/lib(sndfile|avcodec|avformat|avutil|vorbis\w*|ogg|opus\w*|mpg123|FLAC|mp3lame)[.-]")
READING = re.compile(r"copy_to_iter|copy_page_to_iter|copy_mc|filemap|_read_iter|vfs_read|ksys_read|fdget_pos")
MATRIX_PRODUCTS = {"vector_product", "scalar_product", "fp_multiply_add"}

def part(symbol, dso):
    """The part of an algorithm's work one perf sample belongs to: decoding, resampling, transforms or rest."""
    if dso.startswith("[kernel"):
        return "decoding" if READING.search(symbol) else "rest"
    name = "/" + os.path.basename(dso)
    if DECODERS.search(name):
        return "decoding"
    if name.startswith("/libsoxr."):
        return "resampling"
    if name.startswith("/libfftw3f.") or symbol in MATRIX_PRODUCTS:
        return "transforms"
    return "rest"

def sampled(argv):
    """The samples of one process by part (perf record at 999 Hz, every thread)."""
    with tempfile.TemporaryDirectory() as folder:
        data = os.path.join(folder, "perf.data")
        run = subprocess.run(["perf", "record", "-q", "-F", "999", "-o", data, "--"] + argv,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            sys.exit(f"whole_process_speed: perf record {' '.join(argv)} exited {run.returncode}: {run.stderr.strip()[-300:]}")
        script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"], capture_output=True, text=True, check=True)
    counts = collections.Counter()
    for line in script.stdout.splitlines():
        match = re.match(r"\s*[0-9a-f]+\s+(.*)\s+\((.*)\)\s*$", line)
        if match:
            counts[part(match.group(1).strip(), match.group(2))] += 1
    return counts

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
    parser.add_argument("--floors", action="store_true", help="also each algorithm's whole process as a multiple of its floor (perf)")
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
    if args.floors:
        print(f"\nWhere each process's time went (perf record, 999 Hz, one process per file; share of its samples)\n")
        print("| algorithm | decoding | resampling | transforms | rest | × floor |")
        print("|---|---:|---:|---:|---:|---:|")
        for a in args.algorithms:
            counts = collections.Counter()
            for f in args.files:
                counts += sampled(commands[a](f))
            total = sum(counts.values())
            floor = counts["decoding"] + counts["resampling"] + counts["transforms"]
            shares = " | ".join(f"{100 * counts[p] / total:.0f} %" for p in ("decoding", "resampling", "transforms", "rest"))
            print(f"| {a} | {shares} | {total / floor:.2f} |" if floor else f"| {a} | {shares} | |")

if __name__ == "__main__":
    main()
