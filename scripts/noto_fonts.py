"""The fonts the rendered signs are drawn in (scripts/make-script-frames.py,
scripts/make-sign-frames.py), from Debian's fonts-noto-cjk, fonts-noto-core and
fonts-dejavu-core."""

NOTO = "/usr/share/fonts/opentype/noto/"
CJK_SANS = NOTO + "NotoSansCJK-Regular.ttc"
CJK_FONTS = [CJK_SANS, NOTO + "NotoSansCJK-Bold.ttc", NOTO + "NotoSerifCJK-Regular.ttc"]
# Every weight fonts-noto-cjk has, Sans and Serif.
CJK_ALL = CJK_FONTS + [NOTO + "NotoSerifCJK-Bold.ttc"]
# Each language's face in these collections: 0 JP, 1 KR, 2 SC, 3 TC, 4 HK (fc-list's order on Debian 12).
CJK_FACE = {"chi_sim": 2, "jpn": 0, "kor": 1}
TRUETYPE = "/usr/share/fonts/truetype/"
DEVANAGARI_SANS = TRUETYPE + "noto/NotoSansDevanagari-Regular.ttf"
DEVANAGARI_FONTS = [DEVANAGARI_SANS, TRUETYPE + "noto/NotoSansDevanagari-Bold.ttf"]
DEVANAGARI_ALL = DEVANAGARI_FONTS + [TRUETYPE + "noto/NotoSerifDevanagari-Regular.ttf",
                                     TRUETYPE + "noto/NotoSerifDevanagari-Bold.ttf"]
LATIN_SANS = TRUETYPE + "noto/NotoSans-Regular.ttf"
LATIN_ALL = [LATIN_SANS, TRUETYPE + "noto/NotoSans-Bold.ttf", TRUETYPE + "noto/NotoSerif-Regular.ttf",
             TRUETYPE + "dejavu/DejaVuSans.ttf", TRUETYPE + "dejavu/DejaVuSans-Bold.ttf"]
