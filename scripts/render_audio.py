"""A dataset's generated audio (fluidsynth, TiMidity++ and babble renders), from checksummed inputs only.

Every render reads only the files its manifest entry names: the synthesizers run with a clean environment
(HOME is an empty temporary folder, LC_ALL=C, nothing else), fluidsynth with an empty settings file, and
TiMidity++ where /etc/timidity is a folder we control (see `hermetic_timidity`). `describe` says what a render
read, for the message a checksum mismatch prints.
"""
import functools, os, subprocess, tempfile, wave

class RenderError(Exception):
    pass

def clean_env(home):
    """The only environment a synthesizer sees: no locale, no home folder settings, no XDG or PULSE variables."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LC_ALL": "C"}

def tool_version(tool):
    """The first line of `tool --version` ("TiMidity++ version 2.14.0", "FluidSynth runtime version 2.3.1")."""
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return f"{tool}: not installed"
    return next((l.strip() for l in out.splitlines() if "version" in l.lower()), out.strip() or tool)

def read_wav(path):
    with wave.open(path) as w:
        return w.getnchannels(), w.getsampwidth(), w.getframerate(), w.readframes(w.getnframes())

def write_wav(path, channels, width, rate, frames):
    tmp = path + ".part.wav"
    with wave.open(tmp, "wb") as w:
        w.setnchannels(channels); w.setsampwidth(width); w.setframerate(rate); w.writeframes(frames)
    os.replace(tmp, path)

# --- What a MIDI file plays ------------------------------------------------------------------------------

def _number(data, i):
    """A MIDI variable-length quantity at i: (value, index after it)."""
    value = 0
    while True:
        byte = data[i]; i += 1
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, i

def instruments_used(midi_path):
    """(General MIDI programs, drum notes) a Standard MIDI File sounds: every program change on a melodic
    channel, program 0 for a channel that plays before any change in its track, every note on channel 10."""
    with open(midi_path, "rb") as f:
        data = f.read()
    if data[:4] != b"MThd":
        raise RenderError(f"{midi_path}: not a Standard MIDI File")
    programs, drums, i = set(), set(), 8 + int.from_bytes(data[4:8], "big")
    while i + 8 <= len(data):
        end, j, status, current = i + 8 + int.from_bytes(data[i + 4:i + 8], "big"), i + 8, 0, {}
        while j < end:
            _, j = _number(data, j)
            if data[j] == 0xFF:                      # meta event: type, length, data
                length, j = _number(data, j + 2); j += length; continue
            if data[j] in (0xF0, 0xF7):              # system exclusive
                length, j = _number(data, j + 1); j += length; continue
            if data[j] & 0x80:
                status = data[j]; j += 1             # else running status
            kind, channel = status & 0xF0, status & 0x0F
            if kind in (0xC0, 0xD0):
                if kind == 0xC0 and channel != 9:
                    current[channel] = data[j]; programs.add(data[j])
                j += 1
                continue
            key, velocity = data[j], data[j + 1]; j += 2
            if kind == 0x90 and velocity > 0:
                if channel == 9:
                    drums.add(key)
                elif channel not in current:
                    current[channel] = 0; programs.add(0)
        i = end
    return programs, drums

# --- TiMidity++ with a GUS patch set -----------------------------------------------------------------------

def patch_map(config_lines):
    """{("bank"|"drumset", number): line} of a TiMidity++ configuration's bank 0 and drumset 0."""
    section, found = None, {}
    for line in config_lines:
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] in ("bank", "drumset"):
            section = (words[0], int(words[1])) if len(words) > 1 and words[1].isdigit() else None
        elif words[0].isdigit() and section in (("bank", 0), ("drumset", 0)):
            found[(section[0], int(words[0]))] = line
    return found

def timidity_config(sound_set, patches):
    """The configuration text a render gives TiMidity++: the patch set's own file with its `dir` pointed at the
    unpacked archive, then bank 0 again with each substitute program played by the patch of the one it names."""
    with open(os.path.join(patches, sound_set["config"])) as f:
        # `dir` is ours; `source FILE|` and any other line with a pipe would have TiMidity++ run a command through sh.
        lines = [l for l in f.read().splitlines() if not l.startswith("dir ") and "|" not in l]
    patches_of = patch_map(lines)
    extra = ["", "# substitutes: programs this patch set lacks, played with a patch of the same family"]
    for program, played_by in sorted((int(p), q) for p, q in sound_set.get("substitutes", {}).items()):
        line = patches_of.get(("bank", played_by))
        if line is None:
            raise RenderError(f"sound set {sound_set['archive']}: substitute {program} -> {played_by}, "
                              f"but program {played_by} has no patch either")
        extra.append(f"{program} " + line.split(None, 1)[1])
    return "\n".join(["dir " + os.path.join(patches, sound_set["patchFolder"])] + lines + ["bank 0"] + extra) + "\n"

def silent_instruments(midi_path, config_text):
    """What `midi_path` plays that `config_text` has no patch for, as readable words ([] when complete)."""
    programs, drums = instruments_used(midi_path)
    mapped = patch_map(config_text.splitlines())
    return ([f"program {p}" for p in sorted(programs) if ("bank", p) not in mapped] +
            [f"drum note {d}" for d in sorted(drums) if ("drumset", d) not in mapped])

def unshare_prefix():
    """The command that starts a child in a private mount namespace: as root, or as a user through a user namespace."""
    return ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "--user", "--map-root-user", "--mount"]

@functools.cache
def namespace_problem():
    """Why no private mount namespace can be made here (None: it can), asked once."""
    probe = subprocess.run(unshare_prefix() + ["true"], capture_output=True, text=True)
    return None if probe.returncode == 0 else probe.stderr.strip() or f"unshare exited {probe.returncode}"

def hermetic_timidity(argv, private_etc):
    """argv run where /etc/timidity is `private_etc`, in a private mount namespace.

    TiMidity++ 2.14 reads /etc/timidity/timidity.cfg before any `-c` file, whatever the command line says
    (`strace -e openat`), and Debian's file sources the configuration of whichever soundfont is installed
    (fluid-soundfont-gm's, for example): instruments our patch set lacks would be played by it on one machine
    and be silent on another. Bound over /etc/timidity only for the child, an empty folder leaves TiMidity++
    nothing but our `-c` file; HOME (its ~/.timidity.cfg) is an empty folder too. Safe: the system's files
    are untouched, and the namespace ends with the process. Where no namespace can be made (a container
    without the right), argv runs as is and the second value names the reason."""
    if not os.path.isdir("/etc/timidity"):
        return argv, None
    if namespace_problem():
        return argv, f"no private mount namespace ({namespace_problem()}): /etc/timidity was read"
    return unshare_prefix() + ["sh", "-c", 'mount --bind "$0" /etc/timidity && exec "$@"', private_etc] + argv, None

# --- The renders -------------------------------------------------------------------------------------------

def describe(entry, sound_sets, archives):
    """What a render reads, in words: the tool and its version, the score, the sound set and its package."""
    if entry["tool"] == "fluidsynth":
        return f"{tool_version('fluidsynth')} from {entry['midi']} with {entry['soundfont']}"
    if entry["tool"] == "timidity":
        s = sound_sets[entry["soundSet"]]
        a = archives[s["archive"]]
        return (f"{tool_version('timidity')} from {entry['midi']} with {a['package']} {a['version']} "
                f"({s['config']}, {len(s.get('substitutes', {}))} substitutes)")
    return f"{entry['tool']} from {', '.join(entry.get('inputs', []))}"

def first_seconds(argv, entry, env, tool):
    """The first keepSeconds of raw 16-bit stereo a synthesizer writes on stdout; it is stopped there (a piece
    can loop for half an hour, and what it plays later cannot change what it played first)."""
    rate, keep = entry["sampleRate"], int(entry["keepSeconds"] * entry["sampleRate"]) * 4
    with tempfile.TemporaryFile() as errors:  # a file, not a pipe: a chatty synthesizer cannot block on it
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errors, env=env)
        with p.stdout:
            frames = p.stdout.read(keep)
        p.kill(); p.wait()
        errors.seek(0)
        said = errors.read().decode(errors="replace").strip()[-300:]
    if len(frames) < keep:
        raise RenderError(f"render {entry['path']}: {tool} gave {len(frames) // 4 / rate:.1f} s, {entry['keepSeconds']} s needed"
                          + (f": {said}" if said else ""))
    return frames

def render_fluidsynth(entry, audio, out, tmp):
    # fluidsynth's offline render is deterministic (synth.cpu-cores defaults to 1): raw little-endian 16-bit
    # stereo on stdout, cut after keepSeconds. `-f` an empty file: else it runs ~/.fluidsynth or
    # /etc/fluidsynth.conf, which can set gain, reverb, or load another soundfont.
    settings = os.path.join(tmp, "empty.fluidsynth")
    open(settings, "w").close()
    argv = ["fluidsynth", "-ni", "-q", "-f", settings, "-g", str(entry["gain"]), "-r", str(entry["sampleRate"]),
            "-T", "raw", "-O", "s16", "-E", "little", "-F", "-", os.path.join(audio, entry["soundfont"]), os.path.join(audio, entry["midi"])]
    write_wav(out, 2, 2, entry["sampleRate"], first_seconds(argv, entry, clean_env(tmp), "fluidsynth"))

def render_timidity(entry, audio, out, tmp, sound_set, patches):
    # TiMidity++ with a GUS patch set unpacked from its package: a second synthesizer and sound set, independent of
    # fluidsynth's. Deterministic; raw 16-bit stereo on stdout, cut after keepSeconds. A piece that plays an
    # instrument without a patch is refused: TiMidity++ would leave it silent.
    config_text, midi = timidity_config(sound_set, patches), os.path.join(audio, entry["midi"])
    silent = silent_instruments(midi, config_text)
    if silent:
        raise RenderError(f"render {entry['path']}: {entry['midi']} plays {', '.join(silent)}, which sound set "
                          f"{entry['soundSet']} has no patch for (add substitutes in the manifest)")
    config, private_etc = os.path.join(tmp, "timidity.cfg"), os.path.join(tmp, "etc-timidity")
    with open(config, "w") as f:
        f.write(config_text)
    os.makedirs(private_etc)
    argv, unsafe = hermetic_timidity(["timidity", "-c", config, "-Or1sl", "-s", str(entry["sampleRate"]), "-o", "-", midi],
                                     private_etc)
    write_wav(out, 2, 2, entry["sampleRate"], first_seconds(argv, entry, clean_env(tmp), "timidity"))
    return unsafe

def render_babble(entry, audio, out):
    # Speech babble: `voices` prompts at a time, each voice reading the prompts in turn, summed and scaled to a
    # -6 dBFS peak. Deterministic integer arithmetic.
    prompts = []
    for p in entry["inputs"]:
        channels, width, rate, frames = read_wav(os.path.join(audio, p))
        if (channels, width, rate) != (1, 2, entry["sampleRate"]):
            raise RenderError(f"{p}: babble needs 16-bit mono at {entry['sampleRate']} Hz")
        prompts.append([int.from_bytes(frames[i:i + 2], "little", signed=True) for i in range(0, len(frames), 2)])
    n = int(entry["seconds"] * entry["sampleRate"])
    mix = [0] * n
    for voice in range(entry["voices"]):
        position, k = voice * entry["sampleRate"] // 3, voice
        while position < n:
            prompt = prompts[k % len(prompts)]
            for i, s in enumerate(prompt[: n - position]):
                mix[position + i] += s
            position += len(prompt)
            k += entry["voices"]
    peak = max(1, max(abs(s) for s in mix))
    scaled = bytearray()
    for s in mix:
        scaled += int(s * 16384 // peak).to_bytes(2, "little", signed=True)
    write_wav(out, 1, 2, entry["sampleRate"], bytes(scaled))

def render(entry, audio, sound_sets, unpacked, out):
    """Makes one render into `out`; `unpacked(archive_id)` is the folder an archive's whole tree is unpacked in.
    Returns a warning when the render could not be made hermetic, else None."""
    with tempfile.TemporaryDirectory(prefix="fpbench-render-") as tmp:
        if entry["tool"] == "fluidsynth":
            render_fluidsynth(entry, audio, out, tmp)
        elif entry["tool"] == "timidity":
            if entry.get("soundSet") not in sound_sets:
                raise RenderError(f"render {entry['path']}: unknown sound set {entry.get('soundSet')!r}")
            sound_set = sound_sets[entry["soundSet"]]
            return render_timidity(entry, audio, out, tmp, sound_set, unpacked(sound_set["archive"]))
        elif entry["tool"] == "babble":
            render_babble(entry, audio, out)
        else:
            raise RenderError(f"render {entry['path']}: unknown tool {entry['tool']!r}")
    return None
