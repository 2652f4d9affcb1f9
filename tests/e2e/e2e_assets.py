#!/usr/bin/python3
"""Every audio asset, default options: dump shape, JSON sidecar, values against the
NumPy reference (own WAV reader; FLAC/Ogg decoded by sox)."""
import os
import unittest

import spectro_e2e as E

# name -> (expect a warning, nonfinite count, truncated)
ASSETS = {
    "sine_1125hz_48k_f32.wav": (False, 0, False),
    "sine_1000hz_48k_f32.wav": (False, 0, False),
    "two_tone_48k_s16.wav": (False, 0, False),
    "two_tone_48k.flac": (False, 0, False),
    "two_tone_48k.ogg": (False, 0, False),
    "chirp_100_20k_48k_s16.wav": (False, 0, False),
    "stereo_1500l_3000r_48k_s16.wav": (False, 0, False),
    "sine_2250hz_48k_s24.wav": (False, 0, False),
    "sine_513hz_8k_u8.wav": (False, 0, False),
    "two_tone_96k_f32.wav": (False, 0, False),
    "short_3000_samples_48k_f32.wav": (False, 0, False),
    "silence_48k_s16.wav": (False, 0, False),
    "eight_channels_48k_s16.wav": (False, 0, False),
    "nonfinite_48k_f32.wav": (True, 7, False),
    "truncated_48k_s16.wav": (True, 0, True),
    "demo.flac": (False, 0, False),
}


class Assets(unittest.TestCase):
    def test_every_asset_matches_reference(self):
        for name, (warn, nonfinite, truncated) in ASSETS.items():
            with self.subTest(asset=name):
                path = E.asset(name)
                x, rate, _ = E.read_audio(path)
                a, meta, _ = E.dump(self, [path], expect_warning=warn)
                E.check_meta(self, meta, path, rate, x.shape[1], x.shape[0],
                             nonfinite=nonfinite, truncated=truncated)
                if name.endswith(".ogg"):
                    # sox decodes Vorbis through 16-bit samples (the program gets floats
                    # from libvorbis): allow that rounding, about -130 dBFS per bin.
                    E.assert_db_close(self, a, E.reference(x), name, floor=-100, abs_tol=1e-6)
                else:
                    E.assert_db_close(self, a, E.reference(x), name)

    def test_asset_list_is_complete(self):
        """Every audio file in assets/ is covered above (the bad inputs are tested elsewhere)."""
        bad = {"empty.wav", "not_audio.wav"}
        audio = {f for f in os.listdir(E.ASSETS) if f.endswith((".wav", ".flac", ".ogg"))}
        self.assertEqual(audio - bad, set(ASSETS))


if __name__ == "__main__":
    E.main()
