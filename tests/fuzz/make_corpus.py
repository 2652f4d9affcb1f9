#!/usr/bin/env python3
"""Write the fuzz target's seed corpus (tests/fuzz/corpus/).

Usage: python3 tests/fuzz/make_corpus.py [CORPUS_DIR]   (default: beside this script)

Every file is FUZZ_PREFIX (4) option bytes and then an audio file (fuzz_analyze.c says what
the option bytes choose: window, channel, outputs, N, hop, --duration, --fmin/--fmax, the
cpu threads and the batch), named NAME-OPTIONS (the option bytes in hex). Three groups:

  - every format libsndfile writes here, small (a few KB: 8 kHz, a few hundred frames),
    written through libsndfile itself (ctypes, the library spectro reads with): WAV PCM
    8/16/24/32, float, double, u-law, A-law, IMA/MS ADPCM, GSM 6.10, WAVEX, AIFF, AIFC,
    AU, CAF, W64, RF64, FLAC, Ogg Vorbis, Ogg Opus, MP3, VOC, IRCAM, NIST, PAF, 8SVX, MAT4,
    MAT5, PVF, XI, HTK, SDS, AVR, MPC2K, WVE;
  - the inputs of issue 17 and its neighbours, made by hand: each container cut short,
    huge finite samples (1e30, FLT_MAX), NaN/Inf, zero channels, absurd rates, headers
    claiming 2^31 frames or more, 1024 and 1025 channels;
  - junk: random bytes, zeros, text, a format's magic followed by noise, nothing at all;
  - what only FFmpeg reads (libsndfile passes them on), made by the ffmpeg program when it is
    installed: AAC in MP4, AC-3, Opus in Matroska, WMA, MP2 in MPEG-TS, a transport stream
    whose sample format changes part-way (s302m 32 then 16 bits), each also cut short; an
    HLS playlist and a concat script naming other files (which must not be opened).

Deterministic but for the Ogg streams' serial numbers, which libsndfile draws at random, and
the FFmpeg group, which follows the installed ffmpeg's encoders.
Needs Python 3 and libsndfile (libsndfile1, as the build does); ffmpeg for the last group.
"""
import ctypes
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

FUZZ_PREFIX = 4

# ---- the option bytes (fuzz_analyze.c's decode_options, byte for byte) --------------------
WINDOWS = ["hann", "hamming", "blackman", "blackman-harris", "flattop", "rect", "kaiser", "gauss"]
CHANNEL = {"mix": 0, "all": 1, "index": 2}
OUTPUTS = {"peaks": 0, "npy": 1, "csv": 2, "peaks+npy": 3, "peaks+csv": 4}
HOPS = {"N/4": 0, 1: 2, 2: 3, 7: 4, "N/2": 5, "N": 6, "N+1": 7, "3N/2": 8, 1000: 9, 4096: 10,
        65537: 11, "N/8": 12, 333: 14, "2^40": 15}
DURATIONS = {None: 0, 1e-7: 4, 0.001: 5, 0.02: 6, 0.5: 7}
RANGES = {None: 0, "fmin 100": 1, "fmax 1000": 2, "fmin 20000": 3}
THREADS = {1: 0, 2: 1, "auto": 2}
BATCH = {"auto": 0, 1: 1, 3: 2}


def options(window="hann", channel="mix", outputs="peaks+npy", n=256, hop="N/4", duration=None,
            freq=None, index=0, threads=1, batch="auto"):
    """The 4 option bytes for a command line's worth of options. index: the channel
    (modulo the file's channels; 7 = one past the last)."""
    b0 = WINDOWS.index(window) | CHANNEL[channel] << 3 | OUTPUTS[outputs] << 5
    b1 = (int(math.log2(n)) - 4) | HOPS[hop] << 4
    b2 = DURATIONS[duration] | RANGES[freq] << 3 | index << 5
    b3 = THREADS[threads] | BATCH[batch] << 2
    return bytes([b0, b1, b2, b3])


# Command lines that analyse: the files take them in turn, so that every option meets many
# formats and every format is decoded.
RUNS = [
    options(),                                                        # the defaults, small N
    options("hamming", "all", "npy", n=64, hop=1),                    # hop 1, every channel
    options("blackman", "index", "csv", n=128, hop="N", index=1),     # one channel, CSV
    options("blackman-harris", "mix", "peaks+csv", n=16, hop=7, freq="fmin 100", batch=3),
    options("flattop", "all", "peaks", n=512, hop="N+1", duration=0.02),
    options("rect", "mix", "peaks+npy", n=65536, hop=1000),           # N beyond the file
    options("gauss", "all", "peaks+csv", n=32, hop="3N/2", threads=2, batch=1),
    options("hann", "all", "peaks", n=256, hop="2^40", freq="fmax 1000"),
    options("blackman", "index", "npy", n=2048, hop=333, duration=0.5, threads="auto"),
    options("kaiser", "mix", "peaks+npy", n=1024, hop="N/8", freq="fmax 1000"),
]
# Command lines that stop with a usage error once the file is open: the richest inputs only.
ERRORS = [
    options("kaiser", "index", "peaks", n=1024, index=7),             # channel out of range
    options("hann", "mix", "npy", n=4096, duration=1e-7),             # under one sample
    options("hamming", "mix", "peaks", n=128, freq="fmin 20000"),     # no bin in range at 8 kHz
]
RICH = ("wav_pcm16_stereo", "wav_float_huge_1e30", "wav_1024_channels", "wav_float_nan_inf")

# ---- libsndfile through ctypes -----------------------------------------------------------
SFM_WRITE = 0x20
F = {  # major formats
    "wav": 0x010000, "aiff": 0x020000, "au": 0x030000, "raw": 0x040000, "paf": 0x050000,
    "svx": 0x060000, "nist": 0x070000, "voc": 0x080000, "ircam": 0x0A0000, "w64": 0x0B0000,
    "mat4": 0x0C0000, "mat5": 0x0D0000, "pvf": 0x0E0000, "xi": 0x0F0000, "htk": 0x100000,
    "sds": 0x110000, "avr": 0x120000, "wavex": 0x130000, "flac": 0x170000, "caf": 0x180000,
    "wve": 0x190000, "ogg": 0x200000, "mpc2k": 0x210000, "rf64": 0x220000, "mpeg": 0x230000,
}
S = {  # subtypes
    "s8": 0x0001, "s16": 0x0002, "s24": 0x0003, "s32": 0x0004, "u8": 0x0005, "f32": 0x0006,
    "f64": 0x0007, "ulaw": 0x0010, "alaw": 0x0011, "ima": 0x0012, "msadpcm": 0x0013,
    "gsm": 0x0020, "vox": 0x0021, "g721": 0x0030, "g723_24": 0x0031, "dwvw12": 0x0040,
    "dpcm8": 0x0050, "dpcm16": 0x0051, "vorbis": 0x0060, "opus": 0x0064, "alac16": 0x0070,
    "nms16": 0x0022, "mp3": 0x0082,
}


class SF_INFO(ctypes.Structure):
    _fields_ = [("frames", ctypes.c_int64), ("samplerate", ctypes.c_int), ("channels", ctypes.c_int),
                ("format", ctypes.c_int), ("sections", ctypes.c_int), ("seekable", ctypes.c_int)]


def libsndfile():
    lib = ctypes.CDLL("libsndfile.so.1")
    lib.sf_open.restype = ctypes.c_void_p
    lib.sf_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(SF_INFO)]
    lib.sf_writef_float.restype = ctypes.c_int64
    lib.sf_writef_float.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float), ctypes.c_int64]
    lib.sf_close.argtypes = [ctypes.c_void_p]
    lib.sf_strerror.restype = ctypes.c_char_p
    lib.sf_strerror.argtypes = [ctypes.c_void_p]
    return lib


def signal(frames, channels, rate):
    """Two tones per channel (channel c a little higher) and a little noise, peak < 0.9."""
    rng = random.Random(frames * 31 + channels * 7 + rate)
    out = []
    for i in range(frames):
        t = i / rate
        for c in range(channels):
            f1 = 440.0 * (1 + 0.25 * c)
            out.append(0.5 * math.sin(2 * math.pi * f1 * t) + 0.25 * math.sin(2 * math.pi * 3.1 * f1 * t)
                       + 0.05 * (rng.random() - 0.5))
    return out


def sf_write(lib, major, sub, rate=8000, channels=1, frames=400):
    """A file of the format, written by libsndfile, as bytes."""
    info = SF_INFO(0, rate, channels, F[major] | S[sub], 0, 0)
    fd, path = tempfile.mkstemp(suffix="." + major)
    os.close(fd)
    try:
        snd = lib.sf_open(path.encode(), SFM_WRITE, ctypes.byref(info))
        if not snd:
            raise RuntimeError("%s/%s: %s" % (major, sub, lib.sf_strerror(None).decode()))
        data = signal(frames, channels, rate)
        buf = (ctypes.c_float * len(data))(*data)
        lib.sf_writef_float(snd, buf, frames)
        lib.sf_close(snd)
        with open(path, "rb") as f:
            return f.read()
    finally:
        os.unlink(path)


# name, major, subtype, rate, channels, frames: each a few KB at most
FORMATS = [
    ("wav_u8", "wav", "u8", 8000, 1, 600),
    ("wav_pcm16", "wav", "s16", 8000, 1, 500),
    ("wav_pcm16_stereo", "wav", "s16", 8000, 2, 300),
    ("wav_pcm24", "wav", "s24", 8000, 1, 400),
    ("wav_pcm32", "wav", "s32", 8000, 1, 300),
    ("wav_float", "wav", "f32", 8000, 1, 300),
    ("wav_double", "wav", "f64", 8000, 1, 200),
    ("wav_ulaw", "wav", "ulaw", 8000, 1, 600),
    ("wav_alaw", "wav", "alaw", 8000, 1, 600),
    ("wav_ima_adpcm", "wav", "ima", 8000, 1, 1200),
    ("wav_ms_adpcm", "wav", "msadpcm", 8000, 2, 800),
    ("wav_gsm610", "wav", "gsm", 8000, 1, 1000),
    ("wav_g721", "wav", "g721", 8000, 1, 1000),
    ("wavex_pcm16_4ch", "wavex", "s16", 8000, 4, 200),
    ("wavex_float_stereo", "wavex", "f32", 8000, 2, 200),
    ("aiff_pcm16", "aiff", "s16", 8000, 1, 500),
    ("aiff_pcm24_stereo", "aiff", "s24", 8000, 2, 200),
    ("aiff_s8", "aiff", "s8", 8000, 1, 800),
    ("aifc_float", "aiff", "f32", 8000, 1, 300),
    ("aifc_ulaw", "aiff", "ulaw", 8000, 1, 800),
    ("aifc_ima_adpcm", "aiff", "ima", 8000, 1, 1000),
    ("au_pcm16", "au", "s16", 8000, 1, 500),
    ("au_float", "au", "f32", 8000, 1, 300),
    ("au_g723_24", "au", "g723_24", 8000, 1, 1000),
    ("caf_pcm16", "caf", "s16", 8000, 1, 500),
    ("caf_float_stereo", "caf", "f32", 8000, 2, 200),
    ("caf_alac", "caf", "alac16", 8000, 1, 1000),
    ("w64_pcm16", "w64", "s16", 8000, 1, 500),
    ("w64_double", "w64", "f64", 8000, 1, 200),
    ("rf64_pcm16", "rf64", "s16", 8000, 1, 500),
    ("rf64_float", "rf64", "f32", 8000, 2, 200),
    ("flac_pcm16", "flac", "s16", 8000, 1, 1000),
    ("flac_pcm24_stereo", "flac", "s24", 8000, 2, 500),
    ("ogg_vorbis", "ogg", "vorbis", 8000, 1, 800),
    ("ogg_vorbis_stereo", "ogg", "vorbis", 8000, 2, 800),
    ("ogg_opus", "ogg", "opus", 8000, 1, 800),
    ("mp3", "mpeg", "mp3", 8000, 1, 1152),
    ("voc_u8", "voc", "u8", 8000, 1, 800),
    ("voc_pcm16", "voc", "s16", 8000, 1, 500),
    ("ircam_pcm16", "ircam", "s16", 8000, 1, 300),
    ("nist_pcm16", "nist", "s16", 8000, 1, 500),
    ("paf_pcm16", "paf", "s16", 8000, 1, 500),
    ("svx_s8", "svx", "s8", 8000, 1, 800),
    ("mat4_double", "mat4", "f64", 8000, 1, 200),
    ("mat5_pcm16", "mat5", "s16", 8000, 1, 500),
    ("pvf_pcm16", "pvf", "s16", 8000, 1, 500),
    ("xi_dpcm16", "xi", "dpcm16", 8000, 1, 500),
    ("htk_pcm16", "htk", "s16", 8000, 1, 500),
    ("sds_pcm16", "sds", "s16", 8000, 1, 500),
    ("avr_pcm16", "avr", "s16", 8000, 1, 500),
    ("mpc2k_pcm16", "mpc2k", "s16", 8000, 1, 500),
    ("wve_alaw", "wve", "alaw", 8000, 1, 800),
]

# ---- hand-made headers -------------------------------------------------------------------


def riff_wav(fmt_tag, channels, rate, bits, data, declared=None, extra_fmt=b""):
    """A WAV file whose header says what it is told (block align and byte rate follow)."""
    block = channels * bits // 8
    fmt = struct.pack("<HHIIHH", fmt_tag, channels & 0xFFFF, rate & 0xFFFFFFFF,
                      (rate * block) & 0xFFFFFFFF, block & 0xFFFF, bits) + extra_fmt
    declared = len(data) if declared is None else declared
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"data" + struct.pack("<I", declared & 0xFFFFFFFF) + data
    return b"RIFF" + struct.pack("<I", (len(body)) & 0xFFFFFFFF) + body


def floats(values):
    return struct.pack("<%df" % len(values), *values)


def sine16(frames, channels=1):
    return struct.pack("<%dh" % (frames * channels),
                       *[int(16000 * math.sin(i * 0.3)) for i in range(frames * channels)])


def patch(data, at, fmt, value):
    return data[:at] + struct.pack(fmt, value) + data[at + struct.calcsize(fmt):]


def flac_total_samples(data, total):
    """STREAMINFO's 36-bit total sample count (bytes 18..25 hold rate, channels, bits, total)."""
    word = struct.unpack(">Q", data[18:26])[0]
    word = (word & ~((1 << 36) - 1)) | (total & ((1 << 36) - 1))
    return data[:18] + struct.pack(">Q", word) + data[26:]


def flac_rate(data, rate):
    word = struct.unpack(">Q", data[18:26])[0]
    word = (word & ((1 << 44) - 1)) | (rate & 0xFFFFF) << 44
    return data[:18] + struct.pack(">Q", word) + data[26:]


def tricky(made):
    """The inputs of issue 17 and their neighbours, from hand-made headers and from the
    files libsndfile wrote (`made`: name -> bytes)."""
    huge = [1e30, -1e30, 3.4028235e38, -3.4028235e38, 1e38, 0.5, -0.5, 1e30] * 40
    nonfinite = [math.nan, math.inf, -math.inf, 0.25, 1e-45, -0.0, 0.5, math.nan] * 40
    out = {
        "wav_float_huge_1e30": riff_wav(3, 1, 8000, 32, floats(huge)),
        "wav_float_nan_inf": riff_wav(3, 2, 8000, 32, floats(nonfinite)),
        "wav_double_1e300": riff_wav(3, 1, 8000, 64, struct.pack("<8d", 1e300, -1e300, 1e30, 0.5,
                                                                 math.inf, math.nan, 1e-320, 2.0) * 20),
        "wav_zero_channels": riff_wav(1, 0, 8000, 16, sine16(100)),
        "wav_rate_0": riff_wav(1, 1, 0, 16, sine16(100)),
        "wav_rate_1hz": riff_wav(1, 1, 1, 16, sine16(100)),
        "wav_rate_10mhz": riff_wav(1, 1, 10000000, 16, sine16(300)),
        "wav_rate_10mhz_plus1": riff_wav(1, 1, 10000001, 16, sine16(100)),
        "wav_rate_2g": riff_wav(1, 1, 0x7FFFFFFF, 16, sine16(100)),
        "wav_rate_4g": riff_wav(1, 1, 0xFFFFFFFF, 16, sine16(100)),
        "wav_2g_frames": riff_wav(1, 1, 8000, 16, sine16(200), declared=0xFFFFFFF0),
        "wav_float_2g_frames": riff_wav(3, 1, 8000, 32, floats([0.5, -0.5] * 100), declared=0x7FFFFFFC),
        "wav_1024_channels": riff_wav(1, 1024, 8000, 16, sine16(3, 1024)),
        "wav_1025_channels": riff_wav(1, 1025, 8000, 16, sine16(2, 1025)),
        "wav_65535_channels": riff_wav(1, 65535, 8000, 8, bytes(200)),
        "wav_bits_0": riff_wav(1, 1, 8000, 0, sine16(100)),
        "wav_bits_13": riff_wav(1, 1, 8000, 13, sine16(100)),
        "wav_block_align_0": patch(riff_wav(1, 2, 8000, 16, sine16(100, 2)), 32, "<H", 0),
        "wav_data_before_fmt": (b"RIFF" + struct.pack("<I", 236) + b"WAVE" + b"data" + struct.pack("<I", 200)
                                + sine16(100) + riff_wav(1, 1, 8000, 16, b"")[12:36]),
        "wav_header_only": riff_wav(1, 1, 8000, 16, b""),
        "wav_extensible_1024_channels": riff_wav(
            0xFFFE, 1024, 8000, 16, sine16(2, 1024),
            extra_fmt=struct.pack("<HHI", 22, 16, 0) + b"\x01\x00\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"),
    }
    aiff = made["aiff_pcm16"]  # COMM: "COMM" size(4) channels(2) frames(4) bits(2) rate(10)
    comm = aiff.index(b"COMM")
    out["aiff_2g_frames"] = patch(aiff, comm + 10, ">I", 0x80000000)
    out["aiff_zero_channels"] = patch(aiff, comm + 8, ">H", 0)
    out["aiff_1024_channels"] = patch(aiff, comm + 8, ">H", 1024)
    out["aiff_rate_0"] = aiff[:comm + 16] + bytes(10) + aiff[comm + 26:]
    out["aiff_rate_inf"] = aiff[:comm + 16] + b"\x7f\xff\x80" + bytes(7) + aiff[comm + 26:]
    au = made["au_pcm16"]  # ".snd" offset size encoding rate channels
    out["au_2g_frames"] = patch(au, 8, ">I", 0x7FFFFFF0)
    out["au_zero_channels"] = patch(au, 20, ">I", 0)
    out["au_rate_0"] = patch(au, 16, ">I", 0)
    w64 = made["w64_pcm16"]  # chunks: 16-byte GUID (starting "data") then a 64-bit size
    out["w64_2g_frames"] = patch(w64, w64.index(b"data") + 16, "<Q", 1 << 40)
    rf64 = made["rf64_pcm16"]  # ds64: size(4) riff size(8) data size(8) sample count(8)
    ds64 = rf64.index(b"ds64")
    out["rf64_2g_frames"] = patch(patch(rf64, ds64 + 16, "<Q", 1 << 33), ds64 + 24, "<Q", 1 << 32)
    caf = made["caf_pcm16"]  # "data" then a 64-bit big-endian size (-1: to the end)
    out["caf_2g_frames"] = patch(caf, caf.index(b"data") + 4, ">q", 1 << 40)
    out["caf_size_unknown"] = patch(caf, caf.index(b"data") + 4, ">q", -1)
    flac = made["flac_pcm16"]
    out["flac_2g_frames"] = flac_total_samples(flac, 1 << 31)
    out["flac_rate_0"] = flac_rate(flac, 0)
    # each container cut short (a truncated file: the first 60 %)
    for name in ["wav_pcm16", "wav_float", "wav_ima_adpcm", "wavex_pcm16_4ch", "aiff_pcm16", "aifc_float",
                 "au_pcm16", "caf_pcm16", "caf_alac", "w64_pcm16", "rf64_pcm16", "flac_pcm16", "ogg_vorbis",
                 "ogg_opus", "mp3", "voc_pcm16", "nist_pcm16", "paf_pcm16", "mat5_pcm16", "sds_pcm16",
                 "mpc2k_pcm16", "xi_dpcm16"]:
        out["truncated_" + name] = made[name][:len(made[name]) * 6 // 10]
    out["truncated_wav_in_header"] = made["wav_pcm16"][:30]
    return out


def junk():
    rng = random.Random(17)
    noise = bytes(rng.randrange(256) for _ in range(2048))
    return {
        "junk_random": noise,
        "junk_zeros": bytes(2048),
        "junk_text": b"this is not audio, just text\n" * 40,
        "junk_riff_noise": b"RIFF\xff\xff\xff\xffWAVEfmt " + noise[:500],
        "junk_flac_noise": b"fLaC" + noise[:500],
        "junk_ogg_noise": b"OggS\x00\x02" + noise[:500],
        "junk_id3_noise": b"ID3\x04\x00\x00\x00\x00\x00\x10" + noise[:500],
        "junk_form_noise": b"FORM\x00\x00\x01\x00AIFC" + noise[:500],
        "junk_one_byte": b"R",
        "junk_empty": b"",
    }


FFMPEG = [  # name, encoder arguments, container
    ("ff_aac_m4a", ["-c:a", "aac", "-b:a", "32k"], "mp4"),
    ("ff_ac3", ["-c:a", "ac3", "-b:a", "64k"], "ac3"),
    ("ff_opus_mkv", ["-c:a", "libopus", "-b:a", "16k"], "matroska"),
    ("ff_wma", ["-c:a", "wmav2", "-b:a", "32k"], "asf"),
    ("ff_mp2_ts", ["-c:a", "mp2", "-b:a", "64k"], "mpegts"),
    ("ff_s302m_s32_ts", ["-c:a", "s302m", "-sample_fmt", "s32", "-strict", "-2"], "mpegts"),
    ("ff_s302m_s16_ts", ["-c:a", "s302m", "-sample_fmt", "s16", "-strict", "-2"], "mpegts"),
]


def ffmpeg_files():
    """The FFmpeg group (see the top): {} without the ffmpeg program."""
    if not shutil.which("ffmpeg"):
        return {}
    out = {}
    with tempfile.TemporaryDirectory() as d:
        for name, enc, fmt in FFMPEG:
            rate = 48000 if "s302m" in name else 16000  # s302m is 48 kHz only
            path = os.path.join(d, name)
            p = subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                                "sine=f=1000:r=%d:d=0.1" % rate, "-ac", "2"] + enc +
                               ["-f", fmt, path], capture_output=True)
            if p.returncode == 0:
                with open(path, "rb") as f:
                    out[name] = f.read()
    if "ff_s302m_s32_ts" in out and "ff_s302m_s16_ts" in out:
        out["ff_s302m_format_change_ts"] = out.pop("ff_s302m_s32_ts") + out.pop("ff_s302m_s16_ts")
    for name in list(out):
        out["truncated_" + name] = out[name][:len(out[name]) * 6 // 10]
    out["ff_hls_playlist"] = (b"#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n/etc/hostname\n"
                              b"#EXTINF:10,\nfile:/etc/passwd\n#EXT-X-ENDLIST\n")
    out["ff_concat_script"] = b"ffconcat version 1.0\nfile /etc/hostname\nfile 'pipe:0'\n"
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    corpus = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    os.makedirs(corpus, exist_ok=True)
    for old in os.listdir(corpus):
        os.unlink(os.path.join(corpus, old))
    lib = libsndfile()
    made = {}
    for name, major, sub, rate, ch, frames in FORMATS:
        made[name] = sf_write(lib, major, sub, rate, ch, frames)
    files = dict(made)
    files.update(tricky(made))
    files.update(junk())
    ff = ffmpeg_files()
    count = size = 0
    # the FFmpeg group counts on its own, so that it leaves the others' option bytes alone
    order = list(enumerate(sorted(files))) + list(enumerate(sorted(ff)))
    files.update(ff)
    for i, name in order:
        sets = RUNS + ERRORS if name in RICH else [RUNS[i % len(RUNS)]]
        for opt in sets:
            data = opt + files[name]
            with open(os.path.join(corpus, "%s-%s" % (name, opt.hex())), "wb") as f:
                f.write(data)
            count += 1
            size += len(data)
    print("%s: %d files, %d bytes" % (corpus, count, size))


if __name__ == "__main__":
    main()
