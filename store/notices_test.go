package store_test

import (
	"encoding/json"
	"errors"
	"testing"

	"eventbox/store"
)

func TestNoticeJobSpec(t *testing.T) {
	tests := []struct {
		name    string
		n       store.Notice
		data    any
		want    string
		wantErr error
	}{
		{"data marshalled", store.Notice{Kind: store.NoticeExportFailed, At: 7, EventID: "ev1"}, map[string]string{"error": "offline"},
			`{"kind":"export.failed","at":7,"eventId":"ev1","data":{"error":"offline"}}`, nil},
		{"box-wide, no data", store.Notice{Kind: store.NoticeStorageLow, At: 9}, nil, `{"kind":"storage.low","at":9}`, nil},
		{"raw data kept", store.Notice{Kind: store.NoticePhotoUploaded, At: 1, Data: json.RawMessage(`{"n":2}`)}, "ignored",
			`{"kind":"photo.uploaded","at":1,"data":{"n":2}}`, nil},
		{"unknown kind", store.Notice{Kind: "photo.eaten"}, nil, "", store.ErrJobKind},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := store.NoticeJobSpec(tt.n, tt.data)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if spec.Kind != store.NoticeJobKind || string(spec.Payload) != tt.want {
				t.Errorf("spec = %s %s, want %s %s", spec.Kind, spec.Payload, store.NoticeJobKind, tt.want)
			}
		})
	}
}
