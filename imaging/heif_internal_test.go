package imaging

import "testing"

func TestHEIFTransformsComposeToEXIFOrientations(t *testing.T) {
	irot := func(a byte) heifProp { return heifProp{"irot", []byte{a}} }
	imir := func(axis byte) heifProp { return heifProp{"imir", []byte{axis}} }
	ispe := heifProp{"ispe", []byte{0, 0, 0, 0, 0, 0, 0x0f, 0xc0, 0, 0, 0x0b, 0xd0}} // 4032x3024
	tests := []struct {
		name  string
		props []heifProp
		want  int
	}{
		{"no transform is orientation 1", nil, 1},
		{"a quarter turn counter-clockwise is orientation 8", []heifProp{irot(1)}, 8},
		{"a half turn is orientation 3", []heifProp{irot(2)}, 3},
		{"three quarter turns counter-clockwise are orientation 6", []heifProp{irot(3)}, 6},
		{"a left-right mirror (axis 1) is orientation 2", []heifProp{imir(1)}, 2},
		{"a top-bottom mirror (axis 0) is orientation 4", []heifProp{imir(0)}, 4},
		{"a quarter turn then a left-right mirror is orientation 7", []heifProp{irot(1), imir(1)}, 7},
		{"a quarter turn then a top-bottom mirror is orientation 5", []heifProp{irot(1), imir(0)}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &heifMeta{primary: 1, assoc: map[int64][]int{}}
			for i, p := range append([]heifProp{ispe}, tt.props...) {
				m.props = append(m.props, p)
				m.assoc[1] = append(m.assoc[1], i+1)
			}
			info, err := m.primaryInfo(Info{})
			if err != nil {
				t.Fatal(err)
			}
			if info.Orientation != tt.want || info.storedW != 4032 || info.storedH != 3024 {
				t.Fatalf("orientation %d, size %dx%d; want %d, 4032x3024", info.Orientation, info.storedW, info.storedH, tt.want)
			}
		})
	}
}

func TestEXIFOrientationReadsBothByteOrders(t *testing.T) {
	be := []byte("MM\x00*\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01\x00\x06\x00\x00\x00\x00\x00\x00")
	le := []byte("Exif\x00\x00II*\x00\x08\x00\x00\x00\x01\x00\x12\x01\x03\x00\x01\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00")
	bad := []byte("II*\x00\xff\xff\x00\x00")
	for _, tt := range []struct {
		name string
		b    []byte
		want int
	}{
		{"big-endian TIFF gives its orientation", be, 6},
		{"little-endian TIFF after the Exif prefix gives its orientation", le, 3},
		{"an IFD offset past the end gives 1", bad, 1},
		{"an empty block gives 1", nil, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := exifOrientation(tt.b); got != tt.want {
				t.Fatalf("exifOrientation = %d, want %d", got, tt.want)
			}
		})
	}
}
