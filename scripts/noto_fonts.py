"""The Noto fonts the rendered signs are drawn in (scripts/make-script-frames.py,
scripts/make-sign-frames.py), from Debian's fonts-noto-cjk and fonts-noto-core."""

CJK_SANS = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
CJK_FONTS = [CJK_SANS, "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
             "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc"]
# Each language's face in these collections: 0 JP, 1 KR, 2 SC, 3 TC, 4 HK (fc-list's order on Debian 12).
CJK_FACE = {"chi_sim": 2, "jpn": 0, "kor": 1}
DEVANAGARI_SANS = "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf"
DEVANAGARI_FONTS = [DEVANAGARI_SANS, "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Bold.ttf"]
LATIN_SANS = "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"
