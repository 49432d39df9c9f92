#!/usr/bin/env python3
"""Trains nafp-small, a neural audio fingerprint of NAFP's shape (Chang et al., ICASSP 2021) at a size two
CPU cores can train: 1 s segments of 8 kHz audio as 64 log-mel bands x 32 frames, eight blocks of separable
convolutions, a 128-d L2-normalised embedding, contrastive training (NT-Xent) of clean segments against
copies degraded by fpbench's own stages at seeds the benchmark never uses.

  python3 scripts/train_nafp_small.py prepare --fpbench BIN     # clean and degraded 8 kHz copies of Datasets/train-small
  python3 scripts/train_nafp_small.py train --out runs/nafp-small [--minutes M] [--epochs E]
  python3 scripts/train_nafp_small.py export CHECKPOINT OUT.fpnn  # BN folded, float16 weights, SHA-256 printed
  python3 scripts/train_nafp_small.py smoke                        # one batch on generated audio (the test command)

Every value is NAFP's (paper section named) unless marked "our choice". scripts/train-nafp-small.sh runs the lot.
"""
import argparse, hashlib, json, math, os, random, struct, subprocess, sys, time, wave
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RATE = 8000            # NAFP 3.1: 8 kHz
SEGMENT = 8000         # 1 s segments (NAFP 3.1)
HOP_SECONDS = 0.5      # reference segments every 0.5 s (NAFP 3.1)
N_FFT, FFT_HOP = 1024, 256   # NAFP 3.1: STFT 1024 / 256 -> 32 frames with centred frames
MELS, F_MIN, F_MAX = 64, 300.0, 4000.0  # 64 bands (our choice: NAFP has 256; a quarter of the first layer's work), 300-4,000 Hz (NAFP)
EMBEDDING = 128        # NAFP 3.2: 128-d, L2-normalised
CHANNELS = [32, 32, 64, 64, 128, 128, 192, 192]  # our choice: NAFP's 8 blocks at about a tenth of its widths (weights under 2 MB as float16)
F_STRIDES = [2, 2, 2, 2, 2, 2, 1, 1]   # 64 mel bands -> 1
T_STRIDES = [2, 2, 2, 2, 2, 1, 1, 1]   # 32 frames -> 1
TEMPERATURE = 0.05     # NAFP 3.3: NT-Xent, tau 0.05
SHIFT = 0.2            # our choice: the positive is cut up to 0.2 s from its anchor (a query is never on the reference's 0.5 s grid)
COPIES = 4             # our choice: degraded copies of every training track
VALIDATION = {"megaglest-data"}  # held out by package: the mini-search the pilot watches
TRAIN_SEED_BASE = 900_000  # chains' seeds: the benchmark's are derived from 2013 and never this range


# ---------------------------------------------------------------- front end (the Swift forward pass mirrors it)
def mel_matrix():
    """Triangular mel filters (HTK mel scale), MELS x (N_FFT/2+1), each band's peak 1."""
    def mel(f): return 2595.0 * np.log10(1.0 + f / 700.0)
    def hz(m): return 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    edges = hz(np.linspace(mel(F_MIN), mel(F_MAX), MELS + 2))
    bins = np.arange(N_FFT // 2 + 1) * RATE / N_FFT
    m = np.zeros((MELS, N_FFT // 2 + 1), dtype=np.float32)
    for b in range(MELS):
        lo, mid, hi = edges[b], edges[b + 1], edges[b + 2]
        m[b] = np.clip(np.minimum((bins - lo) / (mid - lo), (hi - bins) / (hi - mid)), 0, None)
    return m


class FrontEnd(nn.Module):
    """1 s of audio -> 64 x 32 log-mel image: Hann window, centred frames (zero padding), power, log10(mel + 1e-6),
    each image scaled to its own maximum (our choice: level-free, as NAFP's normalisation to the segment's max)."""
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT, periodic=True))
        self.register_buffer("mel", torch.from_numpy(mel_matrix()))

    def forward(self, x):  # x: (B, 8000)
        spec = torch.stft(x, N_FFT, FFT_HOP, window=self.window, center=True, pad_mode="constant", return_complex=True)
        power = spec.real ** 2 + spec.imag ** 2                      # (B, 513, 32)
        logmel = torch.log10(torch.matmul(self.mel, power) + 1e-6)     # (B, 64, 32)
        logmel = logmel - logmel.amax(dim=(1, 2), keepdim=True)
        return logmel.clamp(min=-8.0).unsqueeze(1) / 8.0 + 1.0        # (B, 1, 64, 32) in [0, 1]


class Block(nn.Module):
    """A separable block (NAFP 3.2): 1x3 over time, then 3x1 over frequency, each convolution, batch norm, ReLU."""
    def __init__(self, cin, cout, fs, ts):
        super().__init__()
        self.time = nn.Conv2d(cin, cout, (1, 3), stride=(1, ts), padding=(0, 1), bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.freq = nn.Conv2d(cout, cout, (3, 1), stride=(fs, 1), padding=(1, 0), bias=False)
        self.bn2 = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.relu(self.bn2(self.freq(F.relu(self.bn1(self.time(x))))))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.front = FrontEnd()
        blocks, cin = [], 1
        for c, fs, ts in zip(CHANNELS, F_STRIDES, T_STRIDES):
            blocks.append(Block(cin, c, fs, ts)); cin = c
        self.blocks = nn.Sequential(*blocks)
        self.project = nn.Sequential(nn.Linear(cin, 256), nn.ELU(), nn.Linear(256, EMBEDDING))  # NAFP's projection head, one group (our choice)

    def embed_images(self, image):
        z = self.blocks(image).flatten(1)
        return F.normalize(self.project(z), dim=1)

    def forward(self, audio):
        return self.embed_images(self.front(audio))


def nt_xent(a, b, tau=TEMPERATURE):
    """NT-Xent (SimCLR; NAFP 3.3): each of 2N embeddings must pick its partner among the other 2N-1."""
    z = torch.cat([a, b])
    sim = z @ z.t() / tau
    sim.fill_diagonal_(-1e9)
    n = a.shape[0]
    target = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, target)


# ---------------------------------------------------------------- data
def read_wav(path):
    with wave.open(path) as w:
        assert w.getframerate() == RATE and w.getnchannels() == 1 and w.getsampwidth() == 2, path
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0


def chain(rng):
    """One training chain of fpbench stages (the units of docs/commands.md), drawn from `rng`."""
    snr = lambda lo, hi: {"snr": {"dB": round(rng.uniform(lo, hi), 1)}}
    kind = rng.choice(["white", "pink", "room", "codec", "band"])
    if kind == "white":
        return [{"noise": {"kind": "white-gaussian", "level": snr(0, 15)}}]
    if kind == "pink":
        return [{"noise": {"kind": "pink", "level": snr(0, 15)}}]
    if kind == "room":  # rooms of random size, reverberation and places: never the benchmark's three (fixed sizes, seed 1);
        # flat walls, the room model the committed weights were trained in (octave-band walls came after them)
        w, d, h = round(rng.uniform(3, 15), 1), round(rng.uniform(3, 12), 1), round(rng.uniform(2.4, 5), 1)
        shortest = 0.5 * w * d * h / (2 * (w * d + w * h + d * h))  # three times Sabine's least (walls that absorb everything): the room can be solved
        return [{"highpass": {"hz": round(rng.uniform(100, 250))}},
                {"room": {"rt60": round(rng.uniform(max(0.2, shortest), 1.2), 2), "distance": round(rng.uniform(0.7, min(w, d) / 2), 2),
                          "width": w, "depth": d, "height": h,
                          "seed": rng.randrange(1000, 10 ** 9), "walls": "flat"}},
                {"noise": {"kind": rng.choice(["pink", "white-gaussian"]), "level": snr(10, 30)}},
                {"lowpass": {"hz": round(rng.uniform(3000, 7000))}}]
    if kind == "codec":
        return [{"codec": {"format": "mp3", "kbps": rng.choice([32, 48, 64])}},
                {"noise": {"kind": "white-gaussian", "level": snr(5, 20)}}]
    return [{"highpass": {"hz": round(rng.uniform(200, 600))}}, {"lowpass": {"hz": round(rng.uniform(2000, 3500))}},
            {"compressor": {"threshold": -20, "ratio": 4}}, {"noise": {"kind": "pink", "level": snr(5, 20)}}]


def training_tracks():
    manifest = json.load(open(os.path.join(ROOT, "Datasets/train-small/manifest.json")))
    return [(f["archive"], f["path"]) for f in manifest["files"]]


def prepare(args):
    """Renders each training track clean and COPIES times degraded, at 8 kHz, with `fpbench degrade`."""
    out = os.path.join(ROOT, args.data)
    jobs = []
    for i, (archive, path) in enumerate(training_tracks()):
        source = os.path.join(ROOT, "Datasets/train-small/audio", path)
        stem = os.path.join(out, path.rsplit(".", 1)[0])
        jobs.append((source, stem + ".clean.wav", None, None))
        for k in range(COPIES):
            seed = TRAIN_SEED_BASE + i * 16 + k
            jobs.append((source, f"{stem}.{k}.wav", random.Random(seed), seed))
    def run(job):
        """Renders one copy; a chain fpbench refuses (a room it cannot solve) is drawn again from the same generator."""
        source, target, draw, seed = job
        os.makedirs(os.path.dirname(target), exist_ok=True)
        for attempt in range(5):
            stages = chain(draw) if draw else []
            if os.path.exists(target): return target, stages
            cmd = [args.fpbench, "degrade", source, "-o", target + ".part.wav", "--rate", str(RATE), "--stages", json.dumps(stages)]
            if seed is not None: cmd += ["--seed", str(seed)]
            if subprocess.run(cmd).returncode == 0:
                os.replace(target + ".part.wav", target)
                return target, stages
        raise SystemExit(f"prepare: {source}: no chain of five could be rendered")
    chains = []
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        for n, done in enumerate(pool.map(run, jobs), 1):
            chains.append(done)
            if n % 50 == 0: print(f"prepare: {n}/{len(jobs)}", flush=True)
    json.dump({"copies": COPIES, "chains": chains}, open(os.path.join(out, "chains.json"), "w"), indent=0)


class Tracks:
    """Every track's clean and degraded copies in memory (float32), split by package into training and validation."""
    def __init__(self, data):
        self.train, self.valid = [], []
        self.missing = 0
        for archive, path in training_tracks():
            stem = os.path.join(data, path.rsplit(".", 1)[0])
            if not all(os.path.exists(f"{stem}.{k}.wav") for k in ["clean", *range(COPIES)]):
                self.missing += 1  # not prepared (yet): a pilot may start on the tracks that are
                continue
            clean = read_wav(stem + ".clean.wav")
            copies = [read_wav(f"{stem}.{k}.wav") for k in range(COPIES)]
            n = min(len(clean), *(len(c) for c in copies))
            if n < 3 * SEGMENT: continue
            (self.valid if archive in VALIDATION else self.train).append((clean[:n], [c[:n] for c in copies]))
        self.weigh()

    def weigh(self):
        """Each training track drawn in proportion to its length."""
        lengths = np.array([len(t[0]) for t in self.train], dtype=np.float64)
        self.weights = lengths / lengths.sum()

    def batch(self, rng, size):
        anchors, positives = np.zeros((size, SEGMENT), np.float32), np.zeros((size, SEGMENT), np.float32)
        picks = rng.choice(len(self.train), size=size, p=self.weights)
        for i, t in enumerate(picks):
            clean, copies = self.train[t]
            shift = int(rng.uniform(-SHIFT, SHIFT) * RATE)
            start = rng.integers(max(0, -shift), len(clean) - SEGMENT - max(0, shift))
            anchors[i] = clean[start:start + SEGMENT]
            positives[i] = copies[rng.integers(len(copies))][start + shift:start + shift + SEGMENT]
        return torch.from_numpy(anchors), torch.from_numpy(positives)


def segments(audio, hop):
    starts = range(0, len(audio) - SEGMENT + 1, int(hop * RATE))
    return np.stack([audio[s:s + SEGMENT] for s in starts]), list(starts)


@torch.no_grad()
def embed(model, audio, hop):
    x, starts = segments(audio, hop)
    return torch.cat([model(torch.from_numpy(x[i:i + 512])) for i in range(0, len(x), 512)]), starts


@torch.no_grad()
def validate(model, tracks, rng, queries=400):
    """Segment-level top-1 (NAFP's 'exact': the right reference segment, 0.5 s grid) of degraded 1 s queries cut at
    random offsets from held-out tracks, against every held-out track's clean segments."""
    model.eval()
    db, owners = [], []
    for t, (clean, _) in enumerate(tracks.valid):
        e, starts = embed(model, clean, HOP_SECONDS)
        db.append(e); owners += [(t, s) for s in starts]
    db = torch.cat(db)
    hits = 0
    for _ in range(queries):
        t = rng.integers(len(tracks.valid)); clean, copies = tracks.valid[t]
        start = rng.integers(0, len(clean) - SEGMENT)
        q = model(torch.from_numpy(copies[rng.integers(len(copies))][start:start + SEGMENT][None].copy()))
        o, s = owners[int((db @ q[0]).argmax())]
        hits += o == t and abs(s - start) <= HOP_SECONDS * RATE / 2
    model.train()
    return hits / queries


def train(args):
    torch.manual_seed(args.seed); rng = np.random.default_rng(args.seed)
    torch.set_num_threads(os.cpu_count())
    os.makedirs(args.out, exist_ok=True)
    tracks = Tracks(os.path.join(ROOT, args.data))
    model = Encoder()
    print(f"train: {sum(p.numel() for p in model.parameters())} parameters; {len(tracks.train)} training tracks "
          f"({sum(len(t[0]) for t in tracks.train) / RATE / 3600:.2f} h), {len(tracks.valid)} validation, {tracks.missing} not prepared", flush=True)
    steps_per_epoch = int(sum(len(t[0]) for t in tracks.train) / (HOP_SECONDS * RATE) / args.batch)
    total = steps_per_epoch * args.epochs
    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=args.lr, total_steps=total, pct_start=0.05)
    step, start_epoch, log = 0, 0, os.path.join(args.out, "log.jsonl")
    checkpoint = os.path.join(args.out, "checkpoint.pt")
    if os.path.exists(checkpoint):  # an interrupted run resumes
        state = torch.load(checkpoint)
        model.load_state_dict(state["model"]); optimiser.load_state_dict(state["optimiser"]); schedule.load_state_dict(state["schedule"])
        start_epoch, step = state["epoch"], state["step"]
        rng = np.random.default_rng([args.seed, start_epoch])
        print(f"train: resuming after epoch {start_epoch}", flush=True)
    began = time.time()
    for epoch in range(start_epoch, args.epochs):
        losses = []
        for _ in range(steps_per_epoch):
            a, p = tracks.batch(rng, args.batch)
            loss = nt_xent(model(a), model(p))
            optimiser.zero_grad(); loss.backward(); optimiser.step(); schedule.step(); step += 1
            losses.append(loss.item())
            if args.validate_every and step % args.validate_every == 0:
                record = {"epoch": epoch + 1, "step": step, "loss": float(np.mean(losses[-args.validate_every:])),
                          "valid_top1": validate(model, tracks, np.random.default_rng(7)), "seconds": round(time.time() - began)}
                print("train:", json.dumps(record), flush=True)
                open(log, "a").write(json.dumps(record) + "\n")
            if len(losses) % 50 == 0:
                print(f"  epoch {epoch + 1} step {len(losses)}/{steps_per_epoch} loss {np.mean(losses[-50:]):.3f} "
                      f"({time.time() - began:.0f} s)", flush=True)
            if args.minutes and time.time() - began > args.minutes * 60: break
        hit = validate(model, tracks, np.random.default_rng(7))
        record = {"epoch": epoch + 1, "step": step, "loss": float(np.mean(losses)), "valid_top1": hit, "seconds": round(time.time() - began)}
        print("train:", json.dumps(record), flush=True)
        open(log, "a").write(json.dumps(record) + "\n")
        torch.save({"model": model.state_dict(), "optimiser": optimiser.state_dict(), "schedule": schedule.state_dict(),
                    "epoch": epoch + 1, "step": step, "args": vars(args)}, checkpoint + ".part")
        os.replace(checkpoint + ".part", checkpoint)
        torch.save(model.state_dict(), os.path.join(args.out, f"epoch-{epoch + 1:03d}.pt"))
        if args.minutes and time.time() - began > args.minutes * 60: break


def fold(model):
    """The encoder's tensors in forward order with each batch norm folded into the convolution before it:
    [(name, float32 array)], weights then biases, as the Swift forward pass reads them."""
    tensors = []
    for i, block in enumerate(model.blocks):
        for conv, bn, name in ((block.time, block.bn1, "time"), (block.freq, block.bn2, "freq")):
            scale = (bn.weight / torch.sqrt(bn.running_var + bn.eps)).detach()
            tensors.append((f"block{i}.{name}.weight", (conv.weight.detach() * scale[:, None, None, None]).numpy()))
            tensors.append((f"block{i}.{name}.bias", (bn.bias.detach() - bn.running_mean * scale).numpy()))
    for j, layer in ((0, model.project[0]), (1, model.project[2])):
        tensors.append((f"project{j}.weight", layer.weight.detach().numpy()))
        tensors.append((f"project{j}.bias", layer.bias.detach().numpy()))
    return tensors


def export(args):
    """Writes the weights file: a line "FPNN 1", a line of JSON (the front end's and the network's constants, and
    each tensor's name, shape and offset), then every tensor as little-endian float16. Prints its SHA-256. Beside
    it, OUT.fixture.json: three fixed 1 s inputs and PyTorch's embeddings of them with the float16 weights, which
    the Swift forward pass must reproduce within 1e-4."""
    state = torch.load(args.checkpoint, map_location="cpu")
    model = Encoder()
    model.load_state_dict(state["model"] if "model" in state else state)
    model.eval()
    tensors = [(n, t.astype(np.float16)) for n, t in fold(model)]
    header, offset = [], 0
    for name, t in tensors:
        header.append({"name": name, "shape": list(t.shape), "offset": offset})
        offset += t.size * 2
    meta = {"model": "nafp-small", "rate": RATE, "segment": SEGMENT, "hopSeconds": HOP_SECONDS, "fft": N_FFT, "fftHop": FFT_HOP,
            "mels": MELS, "fMin": F_MIN, "fMax": F_MAX, "channels": CHANNELS, "frequencyStrides": F_STRIDES, "timeStrides": T_STRIDES,
            "embedding": EMBEDDING, "tensors": header}
    with open(args.out, "wb") as f:
        f.write(b"FPNN 1\n" + json.dumps(meta, separators=(",", ":")).encode() + b"\n")
        for _, t in tensors: f.write(t.astype("<f2").tobytes())
    digest = hashlib.sha256(open(args.out, "rb").read()).hexdigest()
    # The fixture: seeded inputs through the network with the float16 weights; first, the folding checked against
    # the trained network itself (float32, batch norm unfolded).
    x = torch.tensor(np.stack(fixture_inputs()), dtype=torch.float32)
    with torch.no_grad():
        images = model.front(x)
        exact = forward_folded({n: torch.from_numpy(t) for n, t in fold(model)}, images)
        assert (exact - model.embed_images(images)).abs().max() < 1e-4, "batch norm folding changed the embedding"
        outputs = forward_folded({n: torch.from_numpy(t.astype(np.float32)) for n, t in tensors}, images)
    json.dump({"weightsSHA256": digest, "inputs": FIXTURE_INPUTS, "embeddings": outputs.numpy().astype(float).tolist()},
              open(args.out + ".fixture.json", "w"), indent=0)
    print(f"export: {args.out}: {os.path.getsize(args.out)} bytes, SHA-256 {digest}")


FIXTURE_INPUTS = ["0.3 sin(2 pi 440 t)", "0.2 sin(2 pi (300 + 900 t) t)", "0.1 sin(2 pi 700 t) + 0.1 sin(2 pi 1900 t + 1) + 0.05 sin(2 pi 3100 t + 2)"]


def fixture_inputs():
    """1 s at 8 kHz of each of FIXTURE_INPUTS (t = n / 8000), as float32: easy to make again in any language."""
    t = np.arange(SEGMENT, dtype=np.float64) / RATE
    return [(0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32),
            (0.2 * np.sin(2 * np.pi * (300 + 900 * t) * t)).astype(np.float32),
            (0.1 * np.sin(2 * np.pi * 700 * t) + 0.1 * np.sin(2 * np.pi * 1900 * t + 1) + 0.05 * np.sin(2 * np.pi * 3100 * t + 2)).astype(np.float32)]


def forward_folded(folded, image):
    """The network from folded float32 tensors (what the Swift forward pass computes), on log-mel images."""
    x = image
    for i, (fs, ts) in enumerate(zip(F_STRIDES, T_STRIDES)):
        x = F.relu(F.conv2d(x, folded[f"block{i}.time.weight"], folded[f"block{i}.time.bias"], stride=(1, ts), padding=(0, 1)))
        x = F.relu(F.conv2d(x, folded[f"block{i}.freq.weight"], folded[f"block{i}.freq.bias"], stride=(fs, 1), padding=(1, 0)))
    x = x.flatten(1)
    x = F.elu(F.linear(x, folded["project0.weight"], folded["project0.bias"]))
    return F.normalize(F.linear(x, folded["project1.weight"], folded["project1.bias"]), dim=1)


def smoke(args):
    """One training batch and one validation on generated audio: the training script runs, its loss is finite."""
    torch.manual_seed(1); rng = np.random.default_rng(1)
    t = np.arange(30 * RATE) / RATE
    songs = [np.sin(2 * np.pi * (220 * (i + 1) + 40 * np.sin(t * (i + 1))) * t).astype(np.float32) * 0.3 for i in range(4)]
    tracks = Tracks.__new__(Tracks)
    tracks.train = [(s, [s + rng.normal(0, 0.05, s.shape).astype(np.float32)]) for s in songs[:3]]
    tracks.valid = tracks.train[:2]
    tracks.weigh()
    model = Encoder(); optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    a, p = tracks.batch(rng, 16)
    loss = nt_xent(model(a), model(p)); optimiser.zero_grad(); loss.backward(); optimiser.step()
    hit = validate(model, tracks, rng, queries=20)
    assert math.isfinite(loss.item()) and 0 <= hit <= 1
    print(f"smoke: one batch, loss {loss.item():.3f}, validation top-1 {hit:.2f}, {sum(p.numel() for p in model.parameters())} parameters")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare"); p.add_argument("--fpbench", required=True); p.add_argument("--data", default=".build/train-small")
    t = sub.add_parser("train"); t.add_argument("--out", required=True); t.add_argument("--data", default=".build/train-small")
    t.add_argument("--epochs", type=int, default=30); t.add_argument("--minutes", type=float, default=0)
    t.add_argument("--batch", type=int, default=120, help="pairs per batch (NAFP: 120)"); t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--seed", type=int, default=2021)
    t.add_argument("--validate-every", type=int, default=0, help="also validate every N steps (the pilot's curve)")
    e = sub.add_parser("export"); e.add_argument("checkpoint"); e.add_argument("out")
    sub.add_parser("smoke")
    args = ap.parse_args()
    {"prepare": prepare, "train": train, "export": export, "smoke": smoke}[args.command](args)


if __name__ == "__main__":
    main()
