package store

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestCloudSettingsTargets: a record written before S3 was a target (no
// kind) reads as WebDAV with its password; S3 settings come back whole,
// their secret sealed in the file (never in clear, so never in a backup in
// clear), and a database that moved to another box reports the secret
// lost instead of a wrong one.
func TestCloudSettingsTargets(t *testing.T) {
	ctx := context.Background()
	const s3Secret = "s3-Secret-CLEAR-a81f"
	for _, tc := range []struct {
		name string
		// raw is a record as an older binary wrote it; nil: write want.
		raw  []byte
		want CloudSettings
	}{
		{name: "an older record is webdav",
			raw:  []byte(`{"url":"https://dav.example.org/","user":"ana","folder":"Photos","autoExport":true}`),
			want: CloudSettings{URL: "https://dav.example.org/", User: "ana", Folder: "Photos", AutoExport: true}},
		{name: "s3 settings", want: CloudSettings{Kind: CloudS3, Folder: "eventbox", AutoExport: true,
			S3: &S3Settings{Endpoint: "https://s3.example.org", Region: "eu-west-1", Bucket: "parties", Prefix: "boxes",
				BoxName: "box-07", AccessKey: "AK1", Secret: s3Secret, PathStyle: true, PublicURL: "https://cdn.example.org/boxes"}}},
		{name: "webdav written with its kind", want: CloudSettings{Kind: CloudWebDAV, URL: "https://dav.example.org/", Folder: "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			st, err := Open(ctx, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.raw != nil {
				err = st.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bMeta).Put(cloudKey, tc.raw) })
			} else {
				err = st.Cloud().PutSettings(ctx, tc.want)
			}
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := st.Cloud().Settings(ctx)
			if err != nil || !ok {
				t.Fatalf("Settings: %v %v", ok, err)
			}
			wantTarget := CloudWebDAV
			if tc.want.Kind == CloudS3 {
				wantTarget = CloudS3
			}
			if got.Target() != wantTarget {
				t.Fatalf("target %q, want %q", got.Target(), wantTarget)
			}
			if got.URL != tc.want.URL || got.Folder != tc.want.Folder || got.AutoExport != tc.want.AutoExport {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if tc.want.S3 == nil {
				if got.S3 != nil {
					t.Fatalf("webdav settings read with s3 ones: %+v", got.S3)
				}
				return
			}
			g, w := *got.S3, *tc.want.S3
			if len(g.SecretSealed) == 0 {
				t.Fatal("the s3 secret was not sealed")
			}
			g.SecretSealed = nil
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("s3 settings %+v, want %+v", g, *tc.want.S3)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, DBFile))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte(s3Secret)) {
				t.Fatal("the s3 secret is in the database in clear")
			}
			// The database on another box: the secret does not open.
			if err := os.Remove(filepath.Join(dir, "secret.key")); err != nil {
				t.Fatal(err)
			}
			st, err = Open(ctx, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			got, _, err = st.Cloud().Settings(ctx)
			if err != nil || got.S3 == nil || got.S3.Secret != "" || !got.S3.SecretLost {
				t.Fatalf("on another box: %+v, %v", got.S3, err)
			}
		})
	}
}
