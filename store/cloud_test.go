package store_test

import (
	"context"
	"errors"
	"testing"

	"eventbox/store"
)

func TestExportRecords(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	e := newEvent(t, st, "Party")

	x, created, err := st.Cloud().QueueExport(ctx, e.ID, store.ExportVisible)
	if err != nil || !created || x.Status != store.ExportQueued {
		t.Fatalf("first export: %+v %v %v", x, created, err)
	}
	jobs, _ := st.Jobs().Unfinished(ctx, store.ExportJobKind, 0)
	if len(jobs) != 1 || jobs[0].Key != x.ID {
		t.Fatalf("export jobs: %+v", jobs)
	}
	t.Run("the same scope while one is unfinished answers that one", func(t *testing.T) {
		again, created, err := st.Cloud().QueueExport(ctx, e.ID, store.ExportVisible)
		if err != nil || created || again.ID != x.ID {
			t.Fatalf("got %+v %v %v", again, created, err)
		}
		fav, created, err := st.Cloud().QueueExport(ctx, e.ID, store.ExportFavorites)
		if err != nil || !created || fav.ID == x.ID {
			t.Fatalf("favorites: %+v %v %v", fav, created, err)
		}
	})
	t.Run("the end and its notice are written together", func(t *testing.T) {
		spec, err := store.NoticeJobSpec(store.Notice{Kind: store.NoticeExportFinished, EventID: e.ID}, map[string]any{"exportId": x.ID})
		if err != nil {
			t.Fatal(err)
		}
		done, err := st.Cloud().UpdateExport(ctx, e.ID, x.ID, func(ex *store.Export) { ex.Status = store.ExportDone }, spec)
		if err != nil || done.FinishedAt == 0 {
			t.Fatalf("end: %+v %v", done, err)
		}
		if n, _ := st.Jobs().Unfinished(ctx, store.NoticeJobKind, 0); len(n) != 1 {
			t.Fatalf("notice jobs: %d", len(n))
		}
		if _, err := st.Cloud().UpdateExport(ctx, e.ID, x.ID, func(ex *store.Export) { ex.Status = store.ExportRunning }); !errors.Is(err, store.ErrExportFinished) {
			t.Fatalf("a finished export changed again: %v", err)
		}
	})
	t.Run("an export whose job is gone reads as stopped and can be asked again", func(t *testing.T) {
		list, _ := st.Cloud().Exports(ctx, e.ID)
		var fav store.Export
		for _, ex := range list {
			if ex.Scope == store.ExportFavorites {
				fav = ex
			}
		}
		if ok, err := st.Jobs().Cancel(ctx, store.ExportJobKind, fav.ID); !ok || err != nil {
			t.Fatalf("cancel: %v %v", ok, err)
		}
		got, err := st.Cloud().Export(ctx, e.ID, fav.ID)
		if err != nil || got.Status != store.ExportFailed || got.Error != store.ExportStopped {
			t.Fatalf("stopped export reads %+v %v", got, err)
		}
		next, created, err := st.Cloud().QueueExport(ctx, e.ID, store.ExportFavorites)
		if err != nil || !created || next.ID == fav.ID {
			t.Fatalf("asked again: %+v %v %v", next, created, err)
		}
	})
	t.Run("deleting the event removes its exports", func(t *testing.T) {
		if err := st.Events().Delete(ctx, e.ID); err != nil {
			t.Fatal(err)
		}
		if list, err := st.Cloud().Exports(ctx, e.ID); err != nil || len(list) != 0 {
			t.Fatalf("exports left: %+v %v", list, err)
		}
		if _, _, err := st.Cloud().QueueExport(ctx, e.ID, store.ExportVisible); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("export of a deleted event: %v", err)
		}
	})
}
