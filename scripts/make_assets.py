#!/usr/bin/python3
"""Regenerate every file in assets/ (test signals and the demo recording).

Usage: /usr/bin/python3 scripts/make_assets.py [ASSETS_DIR]   (default: <repo>/assets)

Needs numpy and sox (FLAC / Ogg Vorbis encoding).  Deterministic: fixed seeds, no dither
(sox -D), repeatable mode (sox -R); running it twice gives byte-identical files.

WAV files are written by the small writer below, so the exact sample values are known:
integer PCM is quantised as round(x * 2^(bits-1)) (8-bit: + 128, unsigned), which is the
inverse of libsndfile's normalisation (16-bit /32768, 24-bit /8388608, 8-bit (u-128)/128).
Frequencies are chosen relative to N = 4096: at 48 kHz bin k is k * 11.71875 Hz.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

N = 4096

FMT_PCM = 1
FMT_FLOAT = 3
FMT_EXTENSIBLE = 0xFFFE
# KSDATAFORMAT_SUBTYPE_PCM / _IEEE_FLOAT: the format tag, then the fixed GUID tail.
GUID_TAIL = b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"


def encode(x, kind):
    """Float samples (frames, channels) -> little-endian bytes of the given sample kind."""
    if kind == "f32":
        return np.ascontiguousarray(x, dtype="<f4").tobytes()
    if kind == "u8":
        q = np.clip(np.round(x * 128.0) + 128, 0, 255).astype(np.uint8)
        return q.tobytes()
    if kind == "s16":
        q = np.clip(np.round(x * 32768.0), -32768, 32767).astype("<i2")
        return q.tobytes()
    if kind == "s24":
        q = np.clip(np.round(x * 8388608.0), -8388608, 8388607).astype("<i4")
        b = q.reshape(-1, 1).view(np.uint8).reshape(-1, 4)[:, :3]
        return np.ascontiguousarray(b).tobytes()
    raise ValueError(kind)


BITS = {"u8": 8, "s16": 16, "s24": 24, "f32": 32}


def wav_bytes(x, rate, kind, extensible=None, declared_frames=None):
    """A complete WAV file.  x: (frames, channels) float.  declared_frames makes the
    header claim more data than is present (for the truncated-file asset)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    frames, ch = x.shape
    bits = BITS[kind]
    block = ch * bits // 8
    tag = FMT_FLOAT if kind == "f32" else FMT_PCM
    if extensible is None:
        extensible = ch > 2
    if extensible:
        fmt = struct.pack("<HHIIHHHHI", FMT_EXTENSIBLE, ch, rate, rate * block, block, bits,
                          22, bits, 0) + struct.pack("<H", tag) + GUID_TAIL
    else:
        fmt = struct.pack("<HHIIHH", tag, ch, rate, rate * block, block, bits)
        if tag != FMT_PCM:
            fmt += struct.pack("<H", 0)  # cbSize: required for non-PCM formats
    chunks = b"fmt " + struct.pack("<I", len(fmt)) + fmt
    if tag == FMT_FLOAT:
        # Non-PCM WAV files carry a fact chunk with the frame count.
        chunks += b"fact" + struct.pack("<II", 4, declared_frames or frames)
    data = encode(x, kind)
    data_len = (declared_frames or frames) * block
    body = chunks + b"data" + struct.pack("<I", data_len) + data
    pad = b"\x00" if (data_len % 2 and declared_frames is None) else b""
    riff_len = 4 + len(chunks) + 8 + data_len + len(pad)
    return b"RIFF" + struct.pack("<I", riff_len) + b"WAVE" + body + pad


def write(path, blob):
    with open(path, "wb") as f:
        f.write(blob)


def tone(freq, rate, seconds=None, amp=1.0, phase=0.0, frames=None):
    if frames is None:
        frames = int(round(seconds * rate))
    t = np.arange(frames) / rate
    return amp * np.sin(2 * np.pi * freq * t + phase)


def sox(*args):
    subprocess.run(["sox", "-R", "-D", "-V1"] + list(args), check=True)


def make_demo(rate=24000, seconds=14.0, seed=20240601):
    """A melody with harmonics and vibrato, a bass line, a rising chirp, a falling
    whistle, kick drums and hi-hat noise bursts: something to look at in a spectrogram."""
    rng = np.random.default_rng(seed)
    n = int(rate * seconds)
    t = np.arange(n) / rate
    out = np.zeros(n)

    def note(start, dur, midi, amp, harmonics=8, vib_depth=0.006, vib_rate=5.5):
        i0 = int(start * rate)
        m = int(dur * rate)
        tt = np.arange(m) / rate
        f0 = 440.0 * 2 ** ((midi - 69) / 12)
        # Vibrato fades in after 150 ms, as a singer or violinist would.
        depth = vib_depth * np.clip((tt - 0.15) / 0.2, 0, 1)
        inst = f0 * (1 + depth * np.sin(2 * np.pi * vib_rate * tt))
        ph = 2 * np.pi * np.cumsum(inst) / rate
        env = np.minimum(1, tt / 0.02) * np.exp(-1.2 * tt) * np.minimum(1, (dur - tt) / 0.05)
        sig = np.zeros(m)
        for h in range(1, harmonics + 1):
            if h * f0 * 1.01 < rate / 2:
                sig += np.sin(h * ph) / h ** 1.3
        seg = out[i0:i0 + m]
        seg += amp * env[:len(seg)] * sig[:len(seg)]

    beat = 0.4  # 150 bpm
    melody = [72, 74, 76, 79, 76, 74, 72, 67, 69, 72, 74, 76, 74, 72, 69, 72,
              76, 77, 79, 84, 81, 79, 76, 74, 72, 74, 76, 72]
    for i, midi in enumerate(melody):
        dur = beat * (2 if i % 8 == 7 else 1)
        start = 0.5 + sum(beat * (2 if j % 8 == 7 else 1) for j in range(i))
        if start + dur > seconds - 0.5:
            break
        note(start, dur * 0.95, midi, 0.25)
    for i in range(int((seconds - 1.0) / (4 * beat))):
        note(0.5 + i * 4 * beat, 4 * beat * 0.9, [48, 45, 41, 43][i % 4], 0.22,
             harmonics=5, vib_depth=0.0)

    # Rising linear chirp 300 Hz -> 9 kHz from 3 s to 6 s, falling whistle 8 -> 10 s.
    for (t0, t1, f0, f1, a) in [(3.0, 6.0, 300.0, 9000.0, 0.08), (8.0, 10.0, 6000.0, 1500.0, 0.06)]:
        sel = (t >= t0) & (t < t1)
        tt = t[sel] - t0
        k = (f1 - f0) / (t1 - t0)
        env = np.minimum(1, np.minimum(tt, (t1 - t0) - tt) / 0.05)
        out[sel] += a * env * np.sin(2 * np.pi * (f0 * tt + 0.5 * k * tt ** 2))

    # Kick on every other beat, hi-hat (high-passed noise) on the off-beats.
    for i in range(int((seconds - 1.0) / beat)):
        t0 = 0.5 + i * beat
        if i % 2 == 0:
            m = int(0.25 * rate)
            tt = np.arange(m) / rate
            f = 50 + 90 * np.exp(-tt / 0.03)
            kick = np.sin(2 * np.pi * np.cumsum(f) / rate) * np.exp(-tt / 0.08)
            i0 = int(t0 * rate)
            out[i0:i0 + m] += 0.35 * kick[:len(out[i0:i0 + m])]
        m = int(0.05 * rate)
        noise = rng.standard_normal(m)
        noise = np.diff(noise, prepend=0.0)  # first difference: tilts the noise upwards
        i0 = int((t0 + beat / 2) * rate)
        out[i0:i0 + m] += 0.05 * noise * np.exp(-np.arange(m) / (0.012 * rate))[:len(out[i0:i0 + m])]

    out *= 0.8 / np.max(np.abs(out))
    return out, rate


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    dst = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "assets")
    os.makedirs(dst, exist_ok=True)
    p = lambda name: os.path.join(dst, name)  # noqa: E731
    r = 48000

    # Full-scale bin-centred sine: bin 96 = 1125 Hz, peak 1.0 (float), 0.5 s.
    write(p("sine_1125hz_48k_f32.wav"), wav_bytes(tone(96 * r / N, r, 0.5), r, "f32"))
    # Full-scale off-bin sine: 1000 Hz = bin 85.333, peak 1.0 (float), 0.5 s.
    write(p("sine_1000hz_48k_f32.wav"), wav_bytes(tone(1000.0, r, 0.5), r, "f32"))
    # Two tones, 16-bit: bin 64 (750 Hz) at 0.5 (-6.02 dBFS) + bin 512 (6000 Hz) at 0.25.
    two = tone(64 * r / N, r, 0.5, 0.5) + tone(512 * r / N, r, 0.5, 0.25, phase=1.0)
    write(p("two_tone_48k_s16.wav"), wav_bytes(two, r, "s16"))
    # Linear chirp 100 Hz -> 20 kHz over 1 s, peak 0.5, 16-bit.
    t = np.arange(r) / r
    chirp = 0.5 * np.sin(2 * np.pi * (100 * t + 0.5 * (20000 - 100) * t ** 2))
    write(p("chirp_100_20k_48k_s16.wav"), wav_bytes(chirp, r, "s16"))
    # Stereo 16-bit: left bin 128 (1500 Hz) at 0.5, right bin 256 (3000 Hz) at 0.25.
    st = np.stack([tone(128 * r / N, r, 0.5, 0.5), tone(256 * r / N, r, 0.5, 0.25)], axis=1)
    write(p("stereo_1500l_3000r_48k_s16.wav"), wav_bytes(st, r, "s16"))
    # 24-bit PCM: bin 192 (2250 Hz) at 0.9.
    write(p("sine_2250hz_48k_s24.wav"), wav_bytes(tone(192 * r / N, r, 0.5, 0.9), r, "s24"))
    # 8-bit unsigned PCM at 8 kHz: bin 263 (513.671875 Hz) at 0.9, 1 s.  Not bin 256
    # (500 Hz): its 16-sample period would make the quantisation error periodic and move
    # the tone's level by 0.03 dB.
    write(p("sine_513hz_8k_u8.wav"), wav_bytes(tone(263 * 8000 / N, 8000, 1.0, 0.9), 8000, "u8"))
    # 96 kHz float: bin 1024 (24000 Hz) at 0.5 + 40000 Hz (bin 1706.667) at 0.25, 0.25 s.
    r96 = 96000
    x96 = tone(24000.0, r96, 0.25, 0.5) + tone(40000.0, r96, 0.25, 0.25)
    write(p("two_tone_96k_f32.wav"), wav_bytes(x96, r96, "f32"))
    # Shorter than N: 3000 samples of bin-centred 1500 Hz at 1.0, float.
    write(p("short_3000_samples_48k_f32.wav"), wav_bytes(tone(1500.0, r, frames=3000), r, "f32"))
    # Silence: 0.25 s of digital zero, 16-bit.
    write(p("silence_48k_s16.wav"), wav_bytes(np.zeros(r // 4), r, "s16"))
    # 8 channels, 16-bit, WAVE_FORMAT_EXTENSIBLE: channel c has bin 32*(c+1) at 0.5, 0.25 s.
    ch8 = np.stack([tone(32 * (c + 1) * r / N, r, 0.25, 0.5) for c in range(8)], axis=1)
    write(p("eight_channels_48k_s16.wav"), wav_bytes(ch8, r, "s16"))
    # Float with non-finite samples: 1125 Hz (bin 96) at 0.5, 0.25 s, with
    # NaN at samples 100, 5000, 9000; +Inf at 2000, 7000; -Inf at 3000, 11000 (7 in all).
    bad = tone(96 * r / N, r, 0.25, 0.5)
    bad[[100, 5000, 9000]] = np.nan
    bad[[2000, 7000]] = np.inf
    bad[[3000, 11000]] = -np.inf
    write(p("nonfinite_48k_f32.wav"), wav_bytes(bad, r, "f32"))
    # Truncated 16-bit file: header declares 48000 frames (1 s), 20000 frames + 1 byte follow.
    trunc = wav_bytes(tone(750.0, r, frames=20000, amp=0.5), r, "s16", declared_frames=48000)
    write(p("truncated_48k_s16.wav"), trunc + b"\x01")
    # Bad inputs: a zero-byte file and a text file that claims to be WAV.
    write(p("empty.wav"), b"")
    write(p("not_audio.wav"), b"This is a text file, not audio.\nspectro must refuse it.\n")

    # FLAC and Ogg Vorbis copies of two_tone_48k_s16.wav.
    for name, extra in [("two_tone_48k.flac", ["-C", "8"]), ("two_tone_48k.ogg", ["-C", "5"])]:
        sox(p("two_tone_48k_s16.wav"), *extra, p(name))

    # The demo recording.
    demo, dr = make_demo()
    tmp = tempfile.mkdtemp()
    try:
        wav = os.path.join(tmp, "demo.wav")
        write(wav, wav_bytes(demo, dr, "s16"))
        sox(wav, "-C", "8", p("demo.flac"))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
