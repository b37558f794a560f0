#!/bin/sh
# Remakes the committed JPEG fixtures that image/jpeg's encoder cannot write
# (restart markers, 4:2:2 and 4:4:4 chroma, optimised tables, progressive
# scans), with cjpeg and jpegtran from libjpeg-turbo-progs. Run it from
# anywhere; the tests only read the results.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./testdata/mkfixtures "$tmp"

out=internal/jpegdec/testdata
cjpeg -quality 90 -restart 1 "$tmp/photo.ppm" >"$out/restart-every-row.jpg"
cjpeg -quality 90 -restart 3B "$tmp/photo.ppm" >"$out/restart-every-3-mcus.jpg"
cjpeg -quality 90 -sample 1x1 "$tmp/photo.ppm" >"$out/chroma-444.jpg"
cjpeg -quality 90 -sample 2x1 "$tmp/photo.ppm" >"$out/chroma-422.jpg"
cjpeg -quality 90 -optimize "$tmp/photo.ppm" >"$out/optimized.jpg"
cjpeg -quality 90 -progressive "$tmp/photo.ppm" >"$out/progressive.jpg"

jpegtran -progressive -copy all "$tmp/quadrants-exif6.jpg" >testdata/quadrants-progressive-exif6.jpg
