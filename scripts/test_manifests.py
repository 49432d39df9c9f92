#!/usr/bin/env python3
"""A shared manifest is data, never a command or a path outside its dataset (run by scripts/test.sh).

Each case writes a manifest into a fresh folder whose cache already holds the ci dataset's pinned wheel (no
download is needed or made) and runs scripts/fetch_dataset.py on it as a user would: a version string that
would run a shell command, a package name that would be an option, a path that leaves the dataset, an absolute
path, an archive file name with a folder, and a file whose checksum does not match. Each is refused by name,
with nothing written outside the dataset's audio folder and no command run. The same manifest with honest
values builds, so the refusals are not the script failing for another reason.
"""
import copy, hashlib, json, os, shutil, subprocess, sys, tempfile, time, unittest

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
CI = os.path.join(SCRIPTS, "..", "Datasets", "ci", "manifest.json")
CACHE = os.path.join(SCRIPTS, "..", "Datasets", "cache")

class HostileManifests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(CI) as f:
            cls.ci = json.load(f)
        cls.wheel = cls.ci["archives"][0]["file"]
        if not os.path.exists(os.path.join(CACHE, cls.wheel)):
            raise RuntimeError(f"{cls.wheel} is not in Datasets/cache: run scripts/fetch-dataset.sh ci first")

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="fpbench-test-manifests-")
        self.addCleanup(shutil.rmtree, self.work, True)
        os.makedirs(os.path.join(self.work, "data", "cache"))
        shutil.copy(os.path.join(CACHE, self.wheel), os.path.join(self.work, "data", "cache"))
        self.marker = os.path.join(self.work, "PWNED")

    def fetch(self, manifest):
        """Runs fetch_dataset.py on `manifest` in the work folder: (exit code, stderr, files written under work)."""
        folder = os.path.join(self.work, "data", "set")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "manifest.json")
        with open(path, "w") as f:
            json.dump(manifest, f)
        run = subprocess.run([sys.executable, os.path.join(SCRIPTS, "fetch_dataset.py"), path],
                             capture_output=True, text=True, timeout=300,
                             env=dict(os.environ, FETCH_DATASET_RETRY_PAUSE="0"))  # downloads here fail on purpose
        written = sorted(os.path.relpath(os.path.join(d, n), self.work) for d, _, names in os.walk(self.work) for n in names)
        return run.returncode, run.stderr, [w for w in written if not w.startswith("data/cache/") and not w.endswith("manifest.json")]

    def hostile(self, change):
        manifest = copy.deepcopy(self.ci)
        manifest["files"] = manifest["files"][:1]
        change(manifest)
        return manifest

    def assertRefused(self, manifest, *named):
        code, err, written = self.fetch(manifest)
        self.assertNotEqual(code, 0, err)
        for name in named:
            self.assertIn(name, err)
        self.assertEqual(written, [], f"written despite the refusal: {written}")
        self.assertFalse(os.path.exists(self.marker), "a manifest value ran as a command")

    def test_an_honest_manifest_builds(self):
        code, err, written = self.fetch(self.hostile(lambda m: None))
        self.assertEqual(code, 0, err)
        self.assertEqual(written, ["data/set/audio/birds/finch-348.wav"])

    def test_a_version_that_would_run_a_shell_command_is_refused(self):
        def change(m):
            m["archives"][0].update(kind="debian", package="no-such-package-fpbench",
                                    version=f"1'; touch {self.marker}; echo '", file="x.deb")
        self.assertRefused(self.hostile(change), "version", "touch")

    def test_a_package_name_that_would_be_an_option_is_refused(self):
        self.assertRefused(self.hostile(lambda m: m["archives"][0].update(package="--index-url=http://evil")), "package")

    def test_a_path_that_leaves_the_dataset_is_refused(self):
        self.assertRefused(self.hostile(lambda m: m["files"][0].update(path="../../../X.wav")), "../../../X.wav", "leaves")

    def test_an_absolute_path_is_refused(self):
        target = os.path.join(self.work, "abs.wav")
        self.assertRefused(self.hostile(lambda m: m["files"][0].update(path=target)), target)

    def test_a_render_input_outside_the_dataset_is_refused(self):
        def change(m):
            m["renders"] = [{"path": "r.wav", "tool": "babble", "inputs": ["../../../../etc/passwd"], "voices": 1,
                             "seconds": 1, "sampleRate": 16000}]
        self.assertRefused(self.hostile(change), "../../../../etc/passwd")

    def test_an_archive_file_with_a_folder_is_refused(self):
        self.assertRefused(self.hostile(lambda m: m["archives"][0].update(file="../cache2/x.whl")), "plain file name")

    def test_a_file_whose_checksum_differs_is_not_written(self):
        self.assertRefused(self.hostile(lambda m: m["files"][0].update(sha256="0" * 64)), "SHA-256", "not written")

    def test_a_pypi_archive_is_a_wheel_checked_by_pip_before_it_is_kept(self):
        # pycrypto 2.6.1 exists only as a source distribution, whose setup.py pip would run to read its metadata.
        def change(m):
            m["archives"][0].update(package="pycrypto", version="2.6.1", file="pycrypto-2.6.1.tar.gz", sha256="0" * 64)
        self.assertRefused(self.hostile(change), "could not download pycrypto")
        # The right name and version with another checksum: pip's hash check refuses the download itself.
        os.remove(os.path.join(self.work, "data", "cache", self.wheel))
        self.assertRefused(self.hostile(lambda m: m["archives"][0].update(sha256="1" * 64)), "could not download")
        self.assertFalse(os.path.exists(os.path.join(self.work, "data", "cache", self.wheel)))

    def test_a_folder_link_planted_in_audio_is_refused(self):
        outside = os.path.join(self.work, "outside")
        os.makedirs(outside)
        os.makedirs(os.path.join(self.work, "data", "set", "audio"))
        os.symlink(outside, os.path.join(self.work, "data", "set", "audio", "birds"))
        code, err, _ = self.fetch(self.hostile(lambda m: None))
        self.assertNotEqual(code, 0, err)
        self.assertIn("a link that leads outside", err)
        self.assertEqual(os.listdir(outside), [])

    def test_a_planted_part_link_is_removed_not_written_through(self):
        victim = os.path.join(self.work, "victim")
        with open(victim, "w") as f:
            f.write("keep me")
        birds = os.path.join(self.work, "data", "set", "audio", "birds")
        os.makedirs(birds)
        os.symlink(victim, os.path.join(birds, "finch-348.wav.part"))
        code, err, written = self.fetch(self.hostile(lambda m: None))
        self.assertEqual(code, 0, err)
        with open(victim) as f:
            self.assertEqual(f.read(), "keep me")
        self.assertFalse(os.path.islink(os.path.join(birds, "finch-348.wav")))

    def test_a_trailing_slash_and_a_file_folder_clash_are_refused_by_name(self):
        self.assertRefused(self.hostile(lambda m: m["files"][0].update(path="birds/")), "'birds/'")
        def clash(m):
            m["files"].append(dict(m["files"][0], path=m["files"][0]["path"] + "/inner.wav"))
        self.assertRefused(self.hostile(clash), "is named twice, or is also the folder of")

    def test_a_timidity_configuration_never_runs_a_command(self):
        sys.path.insert(0, SCRIPTS)
        from render_audio import timidity_config
        with open(os.path.join(self.work, "timidity.cfg"), "w") as f:
            f.write(f"dir /x\nsource /bin/touch {self.marker}|\nbank 0\n0 piano.pat\nopt |sh\n")
        text = timidity_config({"config": "timidity.cfg", "patchFolder": "p", "archive": "a"}, self.work)
        self.assertNotIn("|", text)
        self.assertIn("0 piano.pat", text)

class DebianArchives(unittest.TestCase):
    """A Debian archive's wanted members come out of its data tarball read as a stream, which stops after the
    last wanted member; a member it lacks is named; a damaged archive is refused. On a package built here."""
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="fpbench-test-debs-")
        self.addCleanup(shutil.rmtree, self.work, True)
        tree = os.path.join(self.work, "tree")
        os.makedirs(os.path.join(tree, "DEBIAN"))
        os.makedirs(os.path.join(tree, "usr", "share", "sounds"))
        with open(os.path.join(tree, "DEBIAN", "control"), "w") as f:
            f.write("Package: fpbench-test\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@t>\nDescription: t\n")
        self.contents = {}
        for i, name in enumerate(["a.wav", "b.wav", "c.wav"]):
            member = f"usr/share/sounds/{name}"
            self.contents[member] = os.urandom(200_000 + i)
            with open(os.path.join(tree, member), "wb") as f:
                f.write(self.contents[member])
        self.deb = os.path.join(self.work, "fpbench-test_1.0_all.deb")
        subprocess.run(["dpkg-deb", "--build", "-Zxz", tree, self.deb], check=True, capture_output=True)
        sys.path.insert(0, SCRIPTS)
        import fetch_dataset
        self.fetch_dataset = fetch_dataset

    def test_wanted_members_come_out_whole_and_nothing_else(self):
        members = ["usr/share/sounds/a.wav", "usr/share/sounds/c.wav"]
        self.assertEqual(self.fetch_dataset.extract(self.deb, members), {m: self.contents[m] for m in members})
        first = ["usr/share/sounds/a.wav"]  # the stream is left after it: the rest is never needed
        self.assertEqual(self.fetch_dataset.extract(self.deb, first), {first[0]: self.contents[first[0]]})

    def test_a_missing_member_is_absent_and_a_damaged_archive_is_refused(self):
        self.assertEqual(self.fetch_dataset.extract(self.deb, ["usr/share/sounds/none.wav"]), {})
        damaged = os.path.join(self.work, "damaged.deb")
        with open(self.deb, "rb") as f, open(damaged, "wb") as g:
            g.write(f.read()[:100_000])
        with self.assertRaises(SystemExit):
            self.fetch_dataset.extract(damaged, ["usr/share/sounds/c.wav"])

    MEMBER = "usr/share/sounds/b.wav"

    def manifest(self):
        """A dataset of one file from the test's archive: its manifest's path."""
        with open(self.deb, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        manifest = {"name": "t", "archives": [{"id": "t", "kind": "debian", "package": "fpbench-test", "version": "1.0",
                                               "file": os.path.basename(self.deb), "sha256": digest}],
                    "files": [{"path": "t/b.wav", "archive": "t", "member": self.MEMBER,
                               "sha256": hashlib.sha256(self.contents[self.MEMBER]).hexdigest()}]}
        os.makedirs(os.path.join(self.work, "data", "set"))
        path = os.path.join(self.work, "data", "set", "manifest.json")
        with open(path, "w") as f:
            json.dump(manifest, f)
        return path

    def assertBuilt(self):
        with open(os.path.join(self.work, "data", "set", "audio", "t", "b.wav"), "rb") as f:
            self.assertEqual(f.read(), self.contents[self.MEMBER])

    def test_a_cached_debian_archive_builds_its_dataset_without_apt(self):
        os.makedirs(os.path.join(self.work, "data", "cache"))
        shutil.copy(self.deb, os.path.join(self.work, "data", "cache"))
        path = self.manifest()
        run = subprocess.run([sys.executable, os.path.join(SCRIPTS, "fetch_dataset.py"), path], capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertNotIn("downloading", run.stderr)
        self.assertBuilt()

    def test_an_archive_appears_in_the_cache_only_whole(self):
        """A download writes into a folder of its own and the archive enters the cache by one rename, so a dataset
        fetched beside another sharing the cache (scripts/evaluate.sh fetches two at once) never reads an archive
        that the other's download is still writing. A stand-in apt-get writes half the archive and waits; the
        cache must not hold that half; then it writes the rest, and the dataset builds."""
        bin_folder, half, go = (os.path.join(self.work, n) for n in ("bin", "HALF", "GO"))
        os.makedirs(bin_folder)
        with open(os.path.join(bin_folder, "apt-get"), "w") as f:
            f.write(f"""#!{sys.executable}
import os, sys, time
if sys.argv[1] == "download":
    data = open({self.deb!r}, "rb").read()
    with open("fpbench-test_1.0_all.deb", "wb") as out:
        out.write(data[:len(data) // 2])
        out.flush()
        open({half!r}, "w").close()
        while not os.path.exists({go!r}):
            time.sleep(0.01)
        out.write(data[len(data) // 2:])
""")
        os.chmod(os.path.join(bin_folder, "apt-get"), 0o755)
        path = self.manifest()
        fetch = subprocess.Popen([sys.executable, os.path.join(SCRIPTS, "fetch_dataset.py"), path], stderr=subprocess.PIPE, text=True,
                                 env=dict(os.environ, PATH=bin_folder + os.pathsep + os.environ["PATH"]))
        try:
            deadline = time.time() + 60
            while not os.path.exists(half) and fetch.poll() is None and time.time() < deadline:
                time.sleep(0.01)
            self.assertTrue(os.path.exists(half), "the stand-in apt-get never ran")
            self.assertFalse(os.path.exists(os.path.join(self.work, "data", "cache", os.path.basename(self.deb))),
                             "half an archive is in the cache, where another fetch would read it")
        finally:
            open(go, "w").close()
            _, err = fetch.communicate(timeout=120)
        self.assertEqual(fetch.returncode, 0, err)
        self.assertBuilt()
        self.assertEqual([n for n in os.listdir(os.path.join(self.work, "data", "cache")) if n.startswith(".download-")], [])

class TrainingData(unittest.TestCase):
    """The learned fingerprint's training music shares no package with anything it is judged on: the catalog, its
    negatives and cross-check, the suite's sources, the test datasets, or the packages reserved for independent
    checks. (catalog-large, fetched only for the scale tests, holds every game-music package, these included.)"""
    RESERVED = {"freedoom", "supertux-data", "nexuiz-music", "hyperrogue-music", "flare-game", "fb-music-high", "rakarrack",
                "jconvolver-config-files", "moove", "vocalpy", "opensoundscape"}

    def packages(self, name):
        with open(os.path.join(SCRIPTS, "..", "Datasets", name, "manifest.json")) as f:
            return {a["package"] for a in json.load(f)["archives"]}

    def test_training_packages_are_disjoint_from_every_judged_set(self):
        training = self.packages("train-small")
        self.assertGreaterEqual(len(training), 8)
        for judged in ("catalog", "catalog-ci", "ci", "default"):
            self.assertEqual(training & self.packages(judged), set(), judged)
        self.assertEqual(training & self.RESERVED, set())

    def test_the_weights_and_their_training_data_are_the_pinned_ones(self):
        import hashlib, re
        folder = os.path.join(SCRIPTS, "..", "Algorithms", "nafp-small")
        with open(os.path.join(folder, "README.md")) as f:
            readme = f.read()
        # Each pin is read beside what it names: the weights' row of the table, the manifest's sentence.
        pins = [re.search(r"nafp-small\.fpnn` \|[^\n]*`([0-9a-f]{64})`", readme).group(1),
                re.search(r"manifest\.json` of\s+SHA-256 `([0-9a-f]{64})`", readme).group(1)]
        def digest(path):
            with open(path, "rb") as f:
                return hashlib.sha256(f.read()).hexdigest()
        weights = os.path.join(SCRIPTS, "..", "Sources", "Fingerprinting", "Chang2021NAFP", "nafp-small.fpnn")
        self.assertEqual(pins[0], digest(weights))
        self.assertEqual(pins[1], digest(os.path.join(SCRIPTS, "..", "Datasets", "train-small", "manifest.json")))
        with open(os.path.join(folder, "nafp-small.fpnn.fixture.json")) as f:
            self.assertEqual(json.load(f)["weightsSHA256"], pins[0])
        # The algorithm checks the same pin when it loads them.
        with open(os.path.join(SCRIPTS, "..", "Sources", "Fingerprinting", "Chang2021NAFP", "NAFPSmall.swift")) as f:
            self.assertIn('weightsSHA256 = "%s"' % pins[0], f.read())

if __name__ == "__main__":
    unittest.main(verbosity=2)
