#!/usr/bin/env python3
"""`fpbench identify` as a new user runs it, on a catalog the benchmark does not use alone: Debian's
Wesnoth music (41 tracks, 2.14 h, in the `catalog` dataset). For each algorithm: an index built with
the threshold calibrated on four other games' music (`index build --negatives`), then one batch of queries
through `identify --index`: 100 seeded 10 s excerpts of Wesnoth tracks with white noise at 0 dB SNR
(sox -R: repeatable dither and noise, the same noise for every query) and 100 seeded 10 s excerpts of colobot's music (recordings in neither the index nor
the calibration). Prints correct top-1 (right track within 0.5 s), false positives and CPU per query.

Usage: python3 scripts/identify_example.py [ALGORITHM ...]   (after scripts/fetch-dataset.sh catalog,
scripts/setup.sh sox and scripts/build.sh)"""
import os, random, re, resource, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FPBENCH = os.path.join(ROOT, ".build/release/fpbench")
AUDIO = os.path.join(ROOT, "Datasets/catalog/audio")
QUERIES, LENGTH, SEED = 100, 10.0, 2013
# Where the calibration's negatives come from: other games' music, neither Wesnoth's nor the test negatives' (colobot).
CALIBRATION = ["hedgewars", "singularity", "ufoai", "warzone"]


def duration(path):
    return float(subprocess.run(["soxi", "-D", path], capture_output=True, text=True, check=True).stdout)


def rms(path):
    text = subprocess.run(["sox", path, "-n", "stat"], capture_output=True, text=True).stderr
    return float(re.search(r"RMS\s+amplitude:\s+([0-9.e-]+)", text).group(1))


def excerpt(source, start, out):
    subprocess.run(["sox", "-R", "-V1", source, "-r", "44100", "-c", "1", "-b", "16", out, "trim", f"{start:.3f}", f"{LENGTH}"], check=True)


def noisy(clean, out, noise):
    """clean + white noise of the same RMS (0 dB SNR), both halved so the sum does not clip."""
    signal = rms(clean)
    subprocess.run(["sox", "-R", "-n", "-r", "44100", "-c", "1", "-b", "16", noise, "synth", f"{LENGTH}", "whitenoise", "vol", "0.5"], check=True)
    gain = signal / rms(noise)
    subprocess.run(["sox", "-R", "-V1", "-m", "-v", "0.5", clean, "-v", f"{0.5 * gain:.6f}", noise, "-b", "16", out], check=True)


def draws(folder, count, rng):
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".ogg"))
    lengths = {f: duration(f) for f in files}
    usable = [f for f in files if lengths[f] > LENGTH + 1]
    return [(f, round(rng.uniform(0, lengths[f] - LENGTH), 3)) for f in (rng.choice(usable) for _ in range(count))]


def identify(algorithm, index, paths, truth, work):
    """One `identify --index` batch: correct top-1 answers, negatives answered with a match, CPU seconds per query."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([FPBENCH, "identify", "-a", algorithm, "--index", index, "--limit", "1", "--quiet", "--"] + paths,
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    answers = {}
    for block in out.split("\n" + work + "/")[1:]:
        name, _, rest = block.partition(":\n")
        top = re.search(r"  1\. (\S+)  score [0-9.]+ %  offset ([0-9.-]+) s", rest)
        answers[os.path.join(work, name.strip())] = (top.group(1), float(top.group(2))) if top else None
    correct = sum(1 for p, (f, s) in truth.items() if answers.get(p) and answers[p][0] == f and abs(answers[p][1] - s) <= 0.5)
    false = sum(1 for p in paths if p not in truth and answers.get(p))
    return correct, false, (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / len(paths)


def main():
    algorithms = sys.argv[1:] or ["constellation", "haitsma-kalker", "waveprint", "panako@dense"]
    work = tempfile.mkdtemp(prefix="fpbench-identify-")
    rng = random.Random(SEED)
    positives, negatives = draws(os.path.join(AUDIO, "wesnoth"), QUERIES, rng), draws(os.path.join(AUDIO, "colobot"), QUERIES, rng)
    truth, paths = {}, []
    for i, (source, start) in enumerate(positives):
        clean, path = os.path.join(work, f"clean-{i:03d}.wav"), os.path.join(work, f"positive-{i:03d}.wav")
        excerpt(source, start, clean)
        noisy(clean, path, os.path.join(work, "noise.wav"))
        truth[path] = (os.path.relpath(source, ROOT), start)
        paths.append(path)
    for i, (source, start) in enumerate(negatives):
        path = os.path.join(work, f"negative-{i:03d}.wav")
        excerpt(source, start, path)
        paths.append(path)
    print(f"{QUERIES} positives (wesnoth, 10 s, white noise 0 dB SNR) and {QUERIES} negatives (colobot, 10 s), seed {SEED}, in {work}")
    print("| algorithm | correct top-1 | negatives answered with a match | held-out false positives | documented threshold: correct, negatives matched | CPU per query, whole batch (ms) |")
    print("|---|---|---|---|---|---|")
    for algorithm in algorithms:
        index = os.path.join(work, f"{algorithm}.fpindex")
        subprocess.run([FPBENCH, "index", "build", "-a", algorithm, "--catalog", "Datasets/catalog/audio/wesnoth", "--negatives"]
                       + [f"Datasets/catalog/audio/{game}" for game in CALIBRATION] + ["--lengths", "10", "--negatives-per-length", "1000", "--quiet", "--out", index], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        info = subprocess.run([FPBENCH, "index", "info", index], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        calibrated = re.search(r"10 s queries: score > ([0-9.]+).*held out: (\d+) of (\d+)", info)
        (correct, false, cpu) = identify(algorithm, index, paths, truth, work)
        plain = os.path.join(work, f"{algorithm}-documented.fpindex")
        subprocess.run([FPBENCH, "index", "build", "-a", algorithm, "--catalog", "Datasets/catalog/audio/wesnoth", "--quiet", "--out", plain],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        (correct_documented, false_documented, _) = identify(algorithm, plain, paths, truth, work)
        print(f"| {algorithm} | {correct}/{QUERIES} | {false}/{QUERIES} | {calibrated.group(2)}/{calibrated.group(3)} (threshold {calibrated.group(1)}) | "
              f"{correct_documented}/{QUERIES}, {false_documented}/{QUERIES} | {1000 * cpu:.0f} |")


if __name__ == "__main__":
    main()
