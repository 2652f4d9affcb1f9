"""spectro: spectrograms, STFTs and measurements of audio, in process.

The engine of the ``spectro`` program as a Python package (docs/python.md): the same
decoders, frames, windows, FFT backends (cpu, cuda, cufft, auto) and dBFS levels, so that
``spectro.spectrogram(y, sr=sr)`` equals ``spectro --dump`` on the same samples, byte for
byte.

    y, sr = spectro.load("song.flac")               # float32 (channels, samples)
    S = spectro.spectrogram(y, sr=sr)               # float32 dBFS (frames, bins)
    Z = spectro.stft(y, sr=sr)                      # complex64, |Z| = the level's amplitude
    an = spectro.Analyzer(sr=sr, n_fft=2048)        # keeps its FFT plan (and GPU) across calls
    s = an.stream(); s.push(chunk); s.flush()       # any chunking == one shot

NumPy in gives NumPy out; a CUDA array (torch, CuPy) in gives one of its framework out.
The GIL is released while the library works; each call on one Analyzer or stream is
serialised by its own lock, different ones run in parallel.
"""
import collections
import threading

import numpy as np

from . import _spectro
from ._convert import as_samples, interleave, parse_channel
from . import _gpu

__all__ = ["load", "spectrogram", "stft", "peaks", "average", "tone", "bands", "loudness", "mel", "mfcc", "chroma",
           "cqt", "reassigned", "transform_frequencies", "Analyzer", "Stream", "run", "RunResult", "pitch", "Pitch",
           "PitchTracker",
           "bandwidth",
           "Peaks", "BandLevels", "frame_count", "windows", "backends", "__version__"]

__version__ = _spectro.version()

_TABLES = _spectro.tables()
windows = _TABLES["windows"]    # the window names (kaiser and gauss take ":PARAM")
backends = _TABLES["backends"]  # "auto", "cpu", "cuda", "cufft"

_AVERAGES = {name: i for i, name in enumerate(_TABLES["averages"])}  # mean 0, max 1, min 2
_LOAD_CHUNK = 1 << 16  # frames a read; the array grows by doubling when the length is unknown


def load(path, *, start=None, end=None):
    """Reads an audio file (anything the program opens: libsndfile's formats, FFmpeg's when
    built in) -> (float32 array (channels, samples), sample rate). start/end: seconds into
    the file (None: its start / its end). Integer PCM is scaled to [-1, 1) as libsndfile does;
    NaN and infinite samples read as 0. OSError for a missing or unreadable file, ValueError
    for a bad range."""
    src = _spectro.Source(path, float(start or 0.0), float(end or 0.0))
    try:
        info = src.info()
        ch = info["channels"]
        size = info["length"] + 1 if info["length"] >= 0 else _LOAD_CHUNK
        buf = np.empty((max(size, 1), ch), dtype=np.float32)
        have = 0
        while True:
            if have == buf.shape[0]:
                buf = np.concatenate([buf, np.empty_like(buf)])
            got = src.read(buf[have:have + _LOAD_CHUNK])
            if got == 0:
                break
            have += got
    finally:
        src.close()
    return np.ascontiguousarray(buf[:have].T), info["sample_rate"]


def frame_count(samples, n_fft=4096, hop_length=None):
    """Frames a channel of `samples` samples gives: floor((L - N) / hop) + 1 for L >= N, 1 for
    0 < L < N (one zero-padded frame), 0 for none."""
    return _spectro.frame_count(int(samples), int(n_fft), int(hop_length or 0))


Peaks = collections.namedtuple("Peaks", "time_s freq_hz db")
Peaks.__doc__ = """The strongest component of each frame (the program's --peaks): arrays of the
frame centres in seconds (float64), frequencies in Hz and levels in dBFS (float64),
(frames,) each, or (channels, frames) with channel="all"."""

BandLevels = collections.namedtuple("BandLevels", "levels mid_hz edges_hz unresolved_hz")
BandLevels.__doc__ = """Fractional-octave band levels (the program's --bands --dump): levels,
float32 dBFS (frames, bands), (bands,) averaged, with a leading channels axis for
channel="all"; the exact mid frequencies (bands,), edges (bands, 2) and the mid frequencies
of the bands too narrow for the FFT (not reported)."""


class Analyzer:
    """Settings kept across calls, with the FFT plan (and a GPU backend's context) made once:

        an = spectro.Analyzer(sr=48000, n_fft=4096, hop_length=1024, window="hann",
                              channel="mix", backend="auto")
        an.spectrogram(y); an.stft(y); s = an.stream()

    sr: the sample rate in Hz; n_fft: a power of two, 16 to 4194304; hop_length: frame step
    (None: n_fft // 4); window: "hann", "hamming", "blackman", "blackman-harris", "flattop",
    "rect", "kaiser[:beta]", "gauss[:sigma]"; channel: "mix" (the mean of the channels),
    "all" (each channel: a leading channels axis) or an index; backend: "auto", "cpu",
    "cuda", "cufft". Bad settings raise ValueError at the first call that uses them
    (with the library's line, e.g. "hop 0: must be from 1 to ..."); the constructor checks
    them on a mono plan at once.
    Thread safety: an Analyzer may be shared by threads; its calls are serialised (a
    stream has its own plan and runs beside them).
    """

    def __init__(self, *, sr, n_fft=4096, hop_length=None, window="hann", channel="mix", backend="auto",
                 expected_samples=0):
        self.sr = _positive_int(sr, "sr")
        self.n_fft = _index(n_fft, "n_fft")
        self.hop_length = None if hop_length is None else _index(hop_length, "hop_length")
        if self.hop_length == 0:  # the library's 0 means "the default": not what was asked
            raise ValueError("hop_length 0: must be at least 1")
        self.window = _text(window, "window")
        self.channel = channel
        self._channel = parse_channel(channel)
        self.backend = _text(backend, "backend")
        self._expected = int(expected_samples)
        self._plans = {}  # input channels -> (_spectro.Analyzer, its info())
        self._lock = threading.Lock()
        if self._channel < 0:  # the settings checked now; a channel index waits for the input
            self._plan(1)

    def __repr__(self):
        return ("Analyzer(sr=%d, n_fft=%d, hop_length=%s, window=%r, channel=%r, backend=%r)"
                % (self.sr, self.n_fft, self.hop_length, self.window, self.channel, self.backend))

    def _make(self, channels, expected=0, backend=None, channel=None):
        return _spectro.Analyzer(self.sr, channels, self.n_fft, self.hop_length or 0, self.window,
                                 self._channel if channel is None else channel, backend or self.backend,
                                 expected or self._expected)

    def _plan(self, channels):
        return self._plan_info(channels)[0]

    def _plan_info(self, channels):
        """The plan for input of `channels` channels, made on first use, and its info."""
        with self._lock:
            got = self._plans.get(channels)
            if got is None:
                plan = self._make(channels)
                got = self._plans[channels] = (plan, plan.info())
            return got

    def info(self, channels=1):
        """What the analyzer runs for input of `channels` channels: a dict of sample_rate,
        channels, out_channels, fft_size, hop, bins, bin_hz, time_first_s, time_step_s,
        window (canonical, "kaiser:8.6"), backend (the one running: "cpu", "cuda", "cufft")
        and fallback (why auto could not use a GPU, or "")."""
        return self._plan(channels).info()

    def frequencies(self):
        """The bins' frequencies in Hz, (n_fft // 2 + 1,): bin k at k * sr / n_fft."""
        return np.arange(self.n_fft // 2 + 1) * (self.sr / self.n_fft)

    def times(self, frames, samples=None):
        """The centres of frames 0 .. frames-1 in seconds (float64): (f * hop + N/2) / sr. With
        the input's length in samples, an input shorter than n_fft has its one frame at the
        centre of its samples, as the program times a short file's frame."""
        out = np.empty(int(frames), dtype=np.float64)
        self._plan(1).frame_times(out, int(samples or 0))
        return out

    def spectrogram(self, y):
        """Float32 dBFS of y, (frames, bins), or (channels, frames, bins) with channel="all";
        y: (samples,) or (channels, samples) of any float or int dtype (ints scaled as PCM),
        a NumPy array or a CUDA array (torch, CuPy; the result is one of its framework)."""
        if _gpu.is_device_array(y):
            return _gpu.spectrogram(self, y)
        return self._whole(y, complex_out=False)

    def stft(self, y):
        """Complex64 STFT of y, shaped as spectrogram's, each value Z_k scaled to the level
        convention: Z_k = 2 X_k / sum(w) (X_k / sum(w) at DC and Nyquist), X the windowed
        frame's DFT, so |Z_k| is the amplitude and 20*log10(max(|Z_k|, 1e-10)) is the
        spectrogram's level (plus the constant 0 dB) to float rounding."""
        if _gpu.is_device_array(y):
            return _gpu.via_host(self.stft, y)
        return self._whole(y, complex_out=True)

    def _whole(self, y, complex_out):
        x, _ = as_samples(y)
        plan, info = self._plan_info(x.shape[0])
        frames = plan.frame_count(x.shape[1])
        shape = (info["out_channels"], frames, info["bins"])
        out = np.empty(shape, dtype=np.complex64 if complex_out else np.float32)
        if frames:
            (plan.stft if complex_out else plan.spectrogram)(interleave(x), out)
        else:
            raise ValueError("samples: no samples, no frame")
        return out if self._channel == _spectro.CHANNEL_ALL else out[0]

    def stream(self, *, complex=False):
        """A new stream of this analyzer's settings: push(samples) returns the frames the
        samples complete, flush() ends the stream and returns the rest. Any chunking gives
        the one-shot result exactly. complex=True: complex64 STFT frames instead of dBFS."""
        return Stream(self, complex)

    # ---- reductions ---------------------------------------------------------------------
    def _spectra(self, y):
        """y's dB spectra per output channel, (out_channels, frames, bins), and the plan."""
        if _gpu.is_device_array(y):
            y = _gpu.to_host(y)
        x, _ = as_samples(y)
        plan = self._plan(x.shape[0])
        db = self._whole(x, complex_out=False)
        return (db if self._channel == _spectro.CHANNEL_ALL else db[None]), plan

    def _per_channel(self, db, fn):
        res = [fn(d) for d in db]
        return res if self._channel == _spectro.CHANNEL_ALL else res[0]

    def peaks(self, y, *, fmin=None, fmax=None):
        """The strongest component of each frame within fmin .. fmax Hz (None: bin 1 / bin
        N/2-1), located between bins and levelled by the window's transform (the program's
        --peaks): a Peaks(time_s, freq_hz, db) of arrays."""
        db, plan = self._spectra(y)
        rec = np.dtype([("freq_hz", "<f8"), ("db", "<f8"), ("bin", "<u8")])

        def one(d):
            out = np.empty(d.shape[0], dtype=rec)
            plan.peaks(d, float(fmin or 0.0), float(fmax or 0.0), out)
            return out
        res = [one(d) for d in db]
        times = np.empty(db.shape[1], dtype=np.float64)
        shape = tuple(y.shape) if hasattr(y, "shape") else np.shape(y)
        plan.frame_times(times, int(shape[-1]) if shape else 0)  # a short input's frame: its centre
        stack = np.stack if self._channel == _spectro.CHANNEL_ALL else (lambda a: a[0])
        return Peaks(stack([times] * len(res)), stack([r["freq_hz"] for r in res]), stack([r["db"] for r in res]))

    def average(self, y, *, mode="mean", psd=False):
        """One spectrum over all frames (the program's --average MODE --dump): "mean" (power
        mean, Welch), "max" (peak hold) or "min"; psd=True: dBFS/Hz. Float32 (bins,), or
        (channels, bins) with channel="all"."""
        m = _choice(mode, _AVERAGES, "mode")
        db, plan = self._spectra(y)

        def one(d):
            out = np.empty(d.shape[1], dtype=np.float32)
            plan.average(d, m, bool(psd), out)
            return out
        res = self._per_channel(db, one)
        return np.stack(res) if isinstance(res, list) else res

    def bandwidth(self, y):
        """Where the long-term spectrum falls off for good, a lossy codec's low-pass (the
        program's --bandwidth): a dict with its JSON's keys, cutoff_hz, verdict ("full-band"
        or "low-passed at 16.1 kHz"), encoders (typical for that cut-off, or None),
        below_db, above_db, drop_db, nyquist_hz, and full_band; every channel's frames
        together, as --bandwidth takes them."""
        db, plan = self._spectra(y)
        rows = np.ascontiguousarray(db.reshape(-1, db.shape[-1]))
        r = plan.bandwidth(rows)
        r["verdict"] = "full-band" if r["full_band"] else "low-passed at %.1f kHz" % (r["cutoff_hz"] / 1000.0)
        return r

    def tone(self, y, *, freq=None, fmin=None, fmax=None):
        """Tone analysis of the power mean of y's spectra (the program's --tone): the dict of
        its JSON (fundamental_hz, fundamental_dbfs, harmonics [{n, hz, dbfs}], thd_percent,
        thd_db, thdn_db, snr_db, sinad_db, enob_bits, noise_dbfs, band_hz, frames_averaged);
        a list of them, each with "channel" first, for channel="all". freq: the tone's
        frequency (None: the strongest in fmin .. fmax, default 20 Hz .. 20 kHz). The
        spectra are this analyzer's, with its window (spectro.tone, like the program's
        --tone, takes kaiser:20 unless told otherwise)."""
        db, plan = self._spectra(y)
        lo = -1.0 if fmin is None else float(fmin)
        hi = -1.0 if fmax is None else float(fmax)
        res = [plan.tone(d, float(freq or 0.0), lo, hi) for d in db]
        if self._channel != _spectro.CHANNEL_ALL:
            return res[0]
        return [dict([("channel", i)] + list(r.items())) for i, r in enumerate(res)]

    def bands(self, y, *, fraction=3, weighting="Z", fmin=None, fmax=None, average=None):
        """Fractional-octave band levels (IEC 61260-1 bands, IEC 61672-1 weighting "Z", "A"
        or "C"; the program's --bands B --weighting W --dump), of each frame, or averaged
        with average="mean"/"max"/"min": a BandLevels."""
        db, plan = self._spectra(y)
        b = _spectro.Bands(plan, int(fraction), _text(weighting, "weighting"),
                           -1.0 if fmin is None else float(fmin), -1.0 if fmax is None else float(fmax))
        mid, lower, upper, unresolved = b.table()
        mode = -1 if average is None else _choice(average, _AVERAGES, "average")

        def one(d):
            out = np.empty((len(mid),) if mode >= 0 else (d.shape[0], len(mid)), dtype=np.float32)
            b.levels(d, mode, out)
            return out
        res = self._per_channel(db, one)
        levels = np.stack(res) if isinstance(res, list) else res
        return BandLevels(levels, np.array(mid), np.column_stack([lower, upper]).reshape(-1, 2),
                          np.array(unresolved))

    # ---- transforms (docs/transforms.md) ---------------------------------------------------
    def _transform(self, y, kind, bands=0, coefficients=0, fmin=None, fmax=None, plan=None):
        """The transform of y: (frames, columns) float32, (frames, bins, 3) for reassign, with a
        leading channels axis for channel="all"; and its columns' frequencies."""
        if y is not None and _gpu.is_device_array(y):
            y = _gpu.to_host(y)
        x = None
        if y is not None:
            x, _ = as_samples(y)
        plan, info = self._plan_info(1 if x is None else x.shape[0])
        t = _spectro.Transform(plan, kind, int(bands), int(coefficients), -1.0 if fmin is None else float(fmin),
                               0.0 if fmax is None else float(fmax))
        cols, depth, freqs = t.table()
        if x is None:
            return None, np.array(freqs)
        frames = plan.frame_count(x.shape[1])
        out = np.empty((info["out_channels"], frames, cols) + ((depth,) if depth > 1 else ()), dtype=np.float32)
        t.compute(plan, interleave(x), out)
        return (out if self._channel == _spectro.CHANNEL_ALL else out[0]), np.array(freqs)

    def mel(self, y, *, n_mels=128, fmin=0.0, fmax=None):
        """Mel band levels in dBFS (the program's --mel B): Slaney scale, area-normalised
        (librosa's filters.mel defaults) on the dBFS power spectrum, 10*log10 of each band's
        power; (frames, n_mels)."""
        return self._transform(y, "mel", _positive_int(n_mels, "n_mels"), 0, fmin, fmax)[0]

    def mfcc(self, y, *, n_mfcc=20, n_mels=128, fmin=0.0, fmax=None):
        """MFCCs (--mfcc K): the orthonormal DCT-II of the mel dB bands, the first n_mfcc;
        (frames, n_mfcc)."""
        return self._transform(y, "mfcc", _positive_int(n_mels, "n_mels"), _positive_int(n_mfcc, "n_mfcc"),
                               fmin, fmax)[0]

    def chroma(self, y):
        """12 pitch classes from C (--chroma; A4 = 440 Hz), each frame divided by its maximum;
        (frames, 12)."""
        return self._transform(y, "chroma")[0]

    def cqt(self, y, *, bins_per_octave=12, fmin=None, fmax=None):
        """Constant-Q levels in dBFS (--cqt B): each octave's hann kernels on the frame's
        samples decimated by 2 an octave (docs/transforms.md), a sine on a bin reading its
        amplitude level; fmin default C1 (32.70 Hz), and its kernel must fit in n_fft
        (ValueError says the n_fft needed); (frames, bins)."""
        return self._transform(y, "cqt", _positive_int(bins_per_octave, "bins_per_octave"), 0, fmin, fmax)[0]

    def reassigned(self, y):
        """The reassigned spectrogram (--reassign): each bin's frequency (Hz), time (s) and
        level (dBFS), (frames, bins, 3)."""
        return self._transform(y, "reassign")[0]

    def transform_frequencies(self, kind, **params):
        """The columns' frequencies in Hz of a transform ("mel", "mfcc" (the indices),
        "chroma" (C4 .. B4), "cqt", "reassign" (the bins)) with the parameters of its method."""
        names = {"mel": ("n_mels", None), "mfcc": ("n_mels", "n_mfcc"), "chroma": (None, None),
                 "cqt": ("bins_per_octave", None), "reassign": (None, None)}
        b, c = names[_text(kind, "kind")]
        bands = params.pop(b, 128 if b == "n_mels" else 12) if b else 0
        coeffs = params.pop(c, 20) if c else 0
        return self._transform(None, kind, bands, coeffs, params.pop("fmin", None), params.pop("fmax", None))[1]


class Stream:
    """A stream of an Analyzer's settings (Analyzer.stream()): push(samples) -> the new
    frames; flush() -> the last frames, and the end of the stream. samples: (n,) or
    (channels, n), the same channels at every push. Pushed in any chunking, the frames
    concatenate to Analyzer.spectrogram (or .stft) of the whole. A stream has its own
    plan; its calls are serialised by its lock."""

    def __init__(self, analyzer, complex_out=False):
        self._an = analyzer
        self._complex = bool(complex_out)
        self._plan = None
        self._like = None  # the last device array pushed, if any
        self._info = None
        self._channels = None
        self._ended = False
        self._lock = threading.Lock()

    def _frames(self, plan, ready):
        info = self._info
        out = np.empty((info["out_channels"], ready, info["bins"]),
                       dtype=np.complex64 if self._complex else np.float32)
        got = plan.read(out, self._complex) if ready else 0
        out = out[:, :got]
        return out if self._an._channel == _spectro.CHANNEL_ALL else out[0]

    def push(self, samples):
        """Analyses the frames the samples complete and returns them: (frames, bins), or
        (channels, frames, bins) with channel="all"; frames may be 0. A CUDA array's samples
        go through the host (the library streams host memory) and its frames come back to its
        device."""
        if _gpu.is_device_array(samples):
            self._like = samples  # flush's frames go to the same device
            return _gpu.via_host(self.push, samples)
        x, _ = as_samples(samples, allow_empty=True)
        with self._lock:
            if self._ended:
                raise ValueError("the stream has ended (flush): start another with Analyzer.stream()")
            if self._plan is None:
                self._plan = self._an._make(x.shape[0], backend=None)
                self._plan.reset(self._complex)
                self._info = self._plan.info()
                self._channels = x.shape[0]
            elif x.shape[0] != self._channels:
                raise ValueError("samples: %d channels, the stream has %d" % (x.shape[0], self._channels))
            ready = self._plan.push(interleave(x))
            return self._frames(self._plan, ready)

    def flush(self):
        """Ends the stream: analyses what is buffered (a stream shorter than n_fft gives its
        one zero-padded frame) and returns those frames (on the device of the CUDA arrays
        pushed, if they were)."""
        out = self._flush()
        return out if self._like is None else _gpu.to_device(out, self._like)

    def _flush(self):
        with self._lock:
            if self._ended:
                raise ValueError("the stream has ended (flush): start another with Analyzer.stream()")
            self._ended = True
            if self._plan is None:  # nothing pushed: no frame
                info = self._an.info()
                shape = (0, info["bins"])
                if self._an._channel == _spectro.CHANNEL_ALL:
                    shape = (1,) + shape
                return np.empty(shape, dtype=np.complex64 if self._complex else np.float32)
            ready = self._plan.finish()
            return self._frames(self._plan, ready)


# ---- one call: a plan of its own, sized for the array (auto weighs the job) ----------------

_kept = threading.local()  # a thread's analyzers for device arrays, by their settings
_KEPT_MAX = 16


def _one(y, sr, n_fft, hop_length, window, channel, backend):
    """The analyzer for one call. A device array's is kept (per thread, by its settings): its
    plan and the GPU's context are made once, so a short clip costs a launch, not a plan (a
    host array's plan is sized for that array, so auto weighs the job, and made afresh)."""
    n = y.shape[-1] if hasattr(y, "shape") and len(y.shape) else 0
    key = None
    if _gpu.is_device_array(y):
        key = (sr, n_fft, hop_length, window, channel, backend)
        try:
            kept = _kept.analyzers
        except AttributeError:
            kept = _kept.analyzers = {}
        try:
            an = kept.get(key)
        except TypeError:  # unhashable settings (the constructor says what is wrong)
            key, an = None, None
        if an is not None:
            return an
    an = Analyzer(sr=sr, n_fft=n_fft, hop_length=hop_length, window=window, channel=channel, backend=backend,
                  expected_samples=n)
    if key is not None:
        if len(kept) >= _KEPT_MAX:
            kept.clear()
        kept[key] = an
    return an


def spectrogram(y, *, sr, n_fft=4096, hop_length=None, window="hann", channel="mix", backend="auto"):
    """Float32 dBFS spectrogram, (frames, bins) or (channels, frames, bins) with
    channel="all": equal to ``spectro --dump`` on the same samples. See Analyzer."""
    return _one(y, sr, n_fft, hop_length, window, channel, backend).spectrogram(y)


def stft(y, *, sr, n_fft=4096, hop_length=None, window="hann", channel="mix", backend="auto"):
    """Complex64 STFT (Analyzer.stft): |Z| in dB is the spectrogram plus the constant 0 dB."""
    return _one(y, sr, n_fft, hop_length, window, channel, backend).stft(y)


def peaks(y, *, sr, n_fft=4096, hop_length=None, window="hann", channel="mix", backend="auto", fmin=None,
          fmax=None):
    """Each frame's strongest component (``spectro --peaks``): Peaks(time_s, freq_hz, db)."""
    return _one(y, sr, n_fft, hop_length, window, channel, backend).peaks(y, fmin=fmin, fmax=fmax)


def average(y, *, sr, n_fft=4096, hop_length=None, window="hann", channel="mix", backend="auto", mode="mean",
            psd=False):
    """One spectrum over all frames (``spectro --average MODE [--psd] --dump``)."""
    return _one(y, sr, n_fft, hop_length, window, channel, backend).average(y, mode=mode, psd=psd)


def tone(y, *, sr, freq=None, fmin=None, fmax=None, n_fft=4096, hop_length=None, window="kaiser:20",
         channel="mix", backend="auto"):
    """Tone analysis (``spectro --tone``): a dict with the keys of its JSON. The window is
    kaiser:20, as the program's --tone, unless given."""
    return _one(y, sr, n_fft, hop_length, window, channel, backend).tone(y, freq=freq, fmin=fmin, fmax=fmax)


def bands(y, *, sr, fraction=3, weighting="Z", fmin=None, fmax=None, average=None, n_fft=4096, hop_length=None,
          window="hann", channel="mix", backend="auto"):
    """Fractional-octave band levels (``spectro --bands B --dump``): a BandLevels."""
    return _one(y, sr, n_fft, hop_length, window, channel, backend).bands(
        y, fraction=fraction, weighting=weighting, fmin=fmin, fmax=fmax, average=average)


def transfer(ref, meas, *, sr, n_fft=4096, hop_length=None, window="hann", backend="auto"):
    """The transfer function of meas from ref (``spectro --transfer 0:1 --dump`` of the two as
    one file): the averaged H1 estimate over the frames (Welch: n_fft, hop_length and window
    as the spectrogram's), a dict of float32 arrays of bins values, "freq_hz",
    "magnitude_db" (20*log10|H1|), "phase_deg", "coherence" (|Sxy|^2 / (Sxx Syy)), and
    "delay_s" (meas after ref, seconds: the excess phase's GCC, docs/measurements.md) and
    "averages" (frames). ref and meas: one channel each, (samples,), of one length."""
    r, _ = as_samples(ref)
    m, _ = as_samples(meas)
    if r.shape[0] != 1 or m.shape[0] != 1:
        raise ValueError("ref, meas: one channel each, (samples,)")
    if r.shape[1] != m.shape[1]:
        raise ValueError("ref, meas: %d and %d samples: give signals of one length" % (r.shape[1], m.shape[1]))
    an = Analyzer(sr=sr, n_fft=n_fft, hop_length=hop_length, window=window, channel="all", backend=backend,
                  expected_samples=r.shape[1])
    z = an.stft(np.concatenate([r, m]))
    table = np.empty((z.shape[2], 4), dtype=np.float32)
    delay, averages = an._plan(2).transfer(np.ascontiguousarray(z[0]), np.ascontiguousarray(z[1]), table)
    return {"freq_hz": table[:, 0].copy(), "magnitude_db": table[:, 1].copy(), "phase_deg": table[:, 2].copy(),
            "coherence": table[:, 3].copy(), "delay_s": delay, "averages": averages}


def loudness(y, *, sr, weights=None, series=False):
    """Loudness per ITU-R BS.1770-4 / EBU R128 of every channel (``spectro --loudness``): a
    dict with the keys of its JSON line, integrated_lufs, loudness_range_lu,
    momentary_max_lufs, short_term_max_lufs, true_peak_dbtp, sample_peak_dbfs (None where
    the line says null: silence, or a range of under 3 s), and frames. y: (samples,) or
    (channels, samples); weights: one per channel (None: BS.1770-4's by channel count, 5.1
    as L R C LFE Ls Rs). series=True adds "momentary_lufs" and "short_term_lufs", float64
    arrays of the 100 ms steps (``--loudness --dump``; NaN before a block is whole).
    OSError under 0.4 s of samples, ValueError for a bad rate or weight."""
    x, _ = as_samples(y)
    rate = _positive_int(sr, "sr")
    w = None
    if weights is not None:
        w = np.ascontiguousarray(weights, dtype=np.float64).reshape(-1)
        if w.shape[0] != x.shape[0]:
            raise ValueError("weights: %d given for %d channels" % (w.shape[0], x.shape[0]))
    r = _spectro.loudness(interleave(x), rate, x.shape[0], w, bool(series))
    if series:
        r["momentary_lufs"] = np.asarray(r["momentary_lufs"], dtype=np.float64)
        r["short_term_lufs"] = np.asarray(r["short_term_lufs"], dtype=np.float64)
    return r


Pitch = collections.namedtuple("Pitch", "time_s f0_hz confidence")
Pitch.__doc__ = """The fundamental of each frame (the program's --pitch): float64 arrays (frames,)
of the frame centres in seconds, f0 in Hz (0 where unvoiced) and YIN's confidence 0 .. 1."""


def pitch(y, *, sr, fmin=50.0, fmax=2000.0, n_fft=4096, hop_length=None):
    """The fundamental of each frame by YIN (``spectro --pitch``, docs/measurements.md "Pitch")
    of the channels' mean: frames of n_fft samples every hop_length (default n_fft/4), framed
    as the spectra are; f0 searched within fmin .. fmax Hz. Returns a Pitch. ValueError for a
    range N cannot hold (it must hold two periods of fmin) or a bad argument."""
    x, _ = as_samples(y)
    rate = _positive_int(sr, "sr")
    n = _positive_int(n_fft, "n_fft")
    hop = 0 if hop_length is None else _positive_int(hop_length, "hop_length")
    frames = frame_count(x.shape[1], n, hop or n // 4)
    f0 = np.zeros(max(frames, 1), dtype=np.float64)
    conf = np.zeros(max(frames, 1), dtype=np.float64)
    got = _spectro.pitch(interleave(x), x.shape[0], rate, n, hop, float(fmin), float(fmax), f0, conf)
    times = ((np.arange(got, dtype=np.float64) * (hop or n // 4)) + n / 2.0) / rate
    return Pitch(times, f0[:got], conf[:got])


class PitchTracker:
    """The pitch of a stream, one frame at a time (the C API's spectro_pitch_tracker): YIN as
    spectro.pitch, kept with its FFT plan between calls. ``estimate(frame)`` takes n_fft mono
    samples (you frame them: e.g. the channels' mean every hop) and returns (f0_hz,
    confidence): f0 0.0 where unvoiced, the numbers spectro.pitch gives for the same frame.
    ValueError for a range n_fft cannot hold (two periods of fmin) or a frame of another
    length. Calls on one tracker are serialised; the GIL is released while it works."""

    def __init__(self, *, sr, n_fft=4096, fmin=50.0, fmax=2000.0):
        self.sr = _positive_int(sr, "sr")
        self.n_fft = _positive_int(n_fft, "n_fft")
        self._t = _spectro.PitchTracker(self.sr, self.n_fft, float(fmin), float(fmax))

    def estimate(self, frame):
        x = np.ascontiguousarray(frame, dtype=np.float32)
        if x.ndim != 1:
            raise ValueError("frame: a 1-D array of n_fft samples, not shape %s" % (x.shape,))
        return self._t.estimate(x)


def bandwidth(y, *, sr, n_fft=4096, hop_length=None, window="hann", channel="mix", backend="auto"):
    """A lossy codec's low-pass (``spectro --bandwidth``): Analyzer.bandwidth."""
    return _one(y, sr, n_fft, hop_length, window, channel, backend).bandwidth(y)


RunResult = collections.namedtuple("RunResult", "notes warnings info")
RunResult.__doc__ = """What spectro.run said: the lines of its notes, warnings and (verbose=True)
its information, lists of str, as the program prints them after "spectro: "."""


def _setting_value(name, value):
    """A keyword's value as the job's text: True a switch, False or None not set, a list or
    tuple joined (size=(1920, 1080) is "1920x1080", db_range=(-90, 0) is "-90:0")."""
    if value is True:
        return None
    if isinstance(value, (list, tuple)):
        sep = "x" if name == "size" else ":"
        return sep.join(str(v) for v in value)
    return str(value)


def run(*inputs, on_frames=None, environment=False, **settings):
    """Runs what one spectro command line runs, in process: the inputs (paths, "-",
    "synth:..."; several make a batch) with the settings named as the program's options, '_'
    for '-' (``fft_size=8192``, ``dump="out/{stem}.npy"``, ``png="x.png"``, ``average="mean"``,
    ``peaks=True``, ``tone=1000``, ``loudness=True``, ...; True is a switch, False or None
    leaves a setting out). With no output setting it opens the window. Outputs to "-" and
    the lines of peaks and measurements go to the process's standard output.
    on_frames(rows, channel, first, info), when given, gets every block of frames as it is
    made (the microphone's too): rows float32 ``(count, bins)`` (``(count, bins, 3)`` for
    reassign) of frames first .. first+count-1, the levels ``dump`` writes or the transform's
    values; info a dict (sample_rate, channels, fft_size, hop, bins, depth, transform,
    freqs_hz, unit, time_first_s, time_step_s, live, source). It is an output: no window
    opens. Returning False stops the run (no error); an exception stops it and is raised
    here. One input only. It is called on the job's thread with the GIL held.
    environment=True also applies the program's environment variables (SPECTRO_CPU_THREADS,
    ...). Returns a RunResult of the lines it said. A bad setting raises ValueError naming the
    field (``hop 0: must be at least 1``); a failed input OSError; a batch with failed files
    OSError whose text holds each file's line and the count. The GIL is released while it
    runs."""
    pairs = []
    for name, value in settings.items():
        if value is False or value is None:
            continue
        pairs.append((name, _setting_value(name, value)))
    frames = None
    if on_frames is not None:
        if not callable(on_frames):
            raise TypeError("on_frames: a callable")

        def frames(raw, channel, first, count, info):
            depth = info["depth"]
            rows = np.frombuffer(raw, dtype=np.float32)
            rows = rows.reshape((count, info["bins"], depth) if depth > 1 else (count, info["bins"]))
            info["freqs_hz"] = np.frombuffer(info["freqs_hz"], dtype=np.float64)
            return on_frames(rows, channel, first, info)
    code, message, said = _spectro.run([str(i) for i in inputs], pairs, bool(environment), frames)
    by_level = {0: [], 1: [], 2: [], 3: []}
    for level, line in said:
        by_level.setdefault(level, []).append(line)
    if code != 0:
        # a batch said each failed file and its count line already: they are the text
        text = message or "\n".join(by_level[0]) or "the run failed"
        raise _EXCEPTIONS.get(code, RuntimeError)(text)
    return RunResult(by_level[2], by_level[1], by_level[3])


# the library's codes (spectro.h) as exceptions, as python/ext/module.c's ext_raise maps them
_EXCEPTIONS = {-1: ValueError, -2: OSError, -3: MemoryError, -4: OSError, -9: KeyboardInterrupt}


def mel(y, *, sr, n_mels=128, fmin=0.0, fmax=None, n_fft=4096, hop_length=None, window="hann", channel="mix",
        backend="auto"):
    """Mel band levels in dBFS (``spectro --mel B --dump``): Analyzer.mel."""
    return _one(y, sr, n_fft, hop_length, window, channel, backend).mel(y, n_mels=n_mels, fmin=fmin, fmax=fmax)


def mfcc(y, *, sr, n_mfcc=20, n_mels=128, fmin=0.0, fmax=None, n_fft=4096, hop_length=None, window="hann",
         channel="mix", backend="auto"):
    """MFCCs (``spectro --mfcc K --dump``): Analyzer.mfcc."""
    return _one(y, sr, n_fft, hop_length, window, channel, backend).mfcc(y, n_mfcc=n_mfcc, n_mels=n_mels,
                                                                         fmin=fmin, fmax=fmax)


def chroma(y, *, sr, n_fft=4096, hop_length=None, window="hann", channel="mix", backend="auto"):
    """Chroma (``spectro --chroma --dump``): Analyzer.chroma."""
    return _one(y, sr, n_fft, hop_length, window, channel, backend).chroma(y)


def cqt(y, *, sr, bins_per_octave=12, fmin=None, fmax=None, n_fft=32768, hop_length=None, channel="mix",
        backend="auto"):
    """Constant-Q levels in dBFS (``spectro --cqt B --dump``): Analyzer.cqt (n_fft 32768 by
    default: C1's kernel at 48 kHz fits)."""
    return _one(y, sr, n_fft, hop_length, "hann", channel, backend).cqt(y, bins_per_octave=bins_per_octave,
                                                                        fmin=fmin, fmax=fmax)


def reassigned(y, *, sr, n_fft=4096, hop_length=None, window="hann", channel="mix", backend="auto"):
    """The reassigned spectrogram (``spectro --reassign --dump``): Analyzer.reassigned."""
    return _one(y, sr, n_fft, hop_length, window, channel, backend).reassigned(y)


def transform_frequencies(kind, *, sr, n_fft=4096, **params):
    """The columns' frequencies of a transform: Analyzer.transform_frequencies."""
    return Analyzer(sr=sr, n_fft=n_fft).transform_frequencies(kind, **params)


# ---- argument checks: TypeError for the wrong kind of value, ValueError for a bad one ------

def _positive_int(v, name):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer, float, np.floating)):
        raise TypeError("%s must be a number, not %s" % (name, type(v).__name__))
    if v != int(v) or int(v) < 1 or int(v) > 2**31 - 1:
        raise ValueError("%s %s: must be a whole number from 1 to %d" % (name, v, 2**31 - 1))
    return int(v)


def _index(v, name):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError("%s must be an int, not %s" % (name, type(v).__name__))
    if v < 0 or v >= 2**63:
        raise ValueError("%s %d: must not be negative" % (name, v))
    return int(v)


def _text(v, name):
    if not isinstance(v, str):
        raise TypeError("%s must be a str, not %s" % (name, type(v).__name__))
    return v


def _choice(v, table, name):
    if not isinstance(v, str):
        raise TypeError("%s must be a str, not %s" % (name, type(v).__name__))
    if v not in table:
        raise ValueError("%s %r: unknown (%s)" % (name, v, ", ".join(table)))
    return table[v]
