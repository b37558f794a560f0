#!/usr/bin/python3
"""Rebuild the embedded caption fonts from Debian's font packages.

Needs: fonts-dejavu-core, fonts-droid-fallback, fonts-nanum, fonts-noto-core,
python3-fonttools.
Run from this directory: /usr/bin/python3 make-fonts.py
The output is deterministic for given package versions (see README.md).
"""
import shutil

from fontTools import subset
from fontTools.ttLib import TTFont

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
DROID = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"
NANUM = "/usr/share/fonts/truetype/nanum/NanumGothic.ttf"
NOTO_DEVANAGARI = "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf"


def common_han():
    """Han ideographs of GB 2312, Big5, JIS X 0208 and KS X 1001: the union of
    the four national everyday sets (about 16,700 characters)."""
    keep = []
    for cp in list(range(0x3400, 0x4DC0)) + list(range(0x4E00, 0xA000)) + list(range(0xF900, 0xFB00)):
        ch = chr(cp)
        for enc in ("gb2312", "big5", "shift_jis", "euc_kr"):
            try:
                ch.encode(enc)
            except UnicodeEncodeError:
                continue
            keep.append(cp)
            break
    return keep


def is_han(cp):
    return 0x3400 <= cp < 0x4DC0 or 0x4E00 <= cp < 0xA000 or 0xF900 <= cp < 0xFB00 or cp >= 0x20000


def rename(font, family, note):
    """Give the font a new family name (required for a modified font: Droid is
    a trademark, Nanum is a Reserved Font Name) and record the change."""
    name = font["name"]
    keep_ids = {0, 7, 8, 9, 10, 11, 12, 13, 14}  # copyright, trademark, vendor, licence...
    for rec in list(name.names):
        if rec.nameID not in keep_ids:
            name.removeNames(nameID=rec.nameID)
    postscript = family.replace(" ", "")
    for nid, value in {
        1: family,
        2: "Regular",
        3: postscript + "-Regular",
        4: family,
        5: "Version 1.0; " + note,
        6: postscript + "-Regular",
    }.items():
        name.setName(value, nid, 3, 1, 0x409)
        name.setName(value, nid, 1, 0, 0)
    if "CFF " in font:
        raise SystemExit("expected TrueType outlines")


def make_subset(src, dst, unicodes, family, note):
    opts = subset.Options()
    opts.layout_features = ["*"]
    opts.name_IDs = ["*"]
    opts.name_languages = ["*"]
    opts.hinting = False
    opts.notdef_outline = True
    opts.recalc_timestamp = False
    font = TTFont(src, recalcTimestamp=False)
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=unicodes)
    sub.subset(font)
    rename(font, family, note)
    font.save(dst)


def main():
    shutil.copyfile(DEJAVU, "DejaVuSans.ttf")

    droid = TTFont(DROID)
    cmap = droid.getBestCmap()
    han = set(common_han())
    keep = [cp for cp in cmap if not is_han(cp) or cp in han]
    make_subset(DROID, "EventboxCJK.ttf", keep, "Eventbox CJK",
                "subset of Droid Sans Fallback Full (Apache-2.0)")

    hangul = list(range(0x1100, 0x1200)) + list(range(0x3130, 0x3190)) + list(range(0xAC00, 0xD7A4))
    make_subset(NANUM, "EventboxHangul.ttf", hangul, "Eventbox Hangul",
                "subset of NanumGothic (OFL-1.1)")

    # Devanagari with its shaping tables (conjuncts, reordered vowel signs),
    # the joiners and the dotted circle the shaper shows for a lone mark.
    devanagari = list(range(0x0900, 0x0980)) + list(range(0xA8E0, 0xA900)) + \
        list(range(0x1CD0, 0x1D00)) + [0x200C, 0x200D, 0x25CC, 0x20B9]
    make_subset(NOTO_DEVANAGARI, "EventboxDevanagari.ttf", devanagari, "Eventbox Devanagari",
                "subset of Noto Sans Devanagari (OFL-1.1)")


if __name__ == "__main__":
    main()
