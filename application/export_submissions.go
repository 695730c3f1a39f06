package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/account"
)

// ExportBatch is how many archived submissions an export reads, and opens,
// at a time: what it holds in memory whatever its length.
const ExportBatch = 200

// ExportSubmissions is GET /v1/forms/{formId}/submissions/export: every
// archived submission of a form that matches the list's filters (its Limit
// and After aside), oldest first. Format names the file format, which the
// port writes; it is kept in the access record with the filters.
type ExportSubmissions struct {
	ListSubmissions
	Format string
}

// ExportStart is what an export's file needs before its first row.
type ExportStart struct {
	// FormName names the file.
	FormName string
	// FieldNames are the columns after the fixed ones: every field name of
	// the exported submissions, in the order they first appear.
	FieldNames []string
	// At is when the export started.
	At time.Time
}

// ExportSink writes an export as its port formats it: Start once, before
// anything else, then Write for each submission, oldest first, then Finish,
// which sends what the sink still holds. An error from any stops the
// export.
type ExportSink interface {
	Start(ExportStart) error
	Write(ArchivedEntry) error
	Finish() error
}

// Export streams the form's archived submissions to sink, opening one
// batch at a time, so its memory does not grow with their number. The
// export is recorded before Start, without a count; the count is set once
// the sink has finished, so an export stopped midway keeps none. It
// returns how many submissions were written. An error before Start means
// nothing was written.
func (h *ReadSubmissionsHandler) Export(ctx context.Context, q ExportSubmissions, sink ExportSink) (int, error) {
	if err := q.Caller.Require(account.ScopeSubmissionsRead); err != nil {
		return 0, err
	}
	q.Limit, q.After = 0, nil // an export has no pages
	if err := checkList(q.ListSubmissions); err != nil {
		return 0, err
	}
	rec, err := ownedForm(ctx, h.read, q.Caller, q.FormID)
	if err != nil {
		return 0, err
	}
	f := h.filterOf(rec.ID, q.ListSubmissions)
	f.OldestFirst, f.Limit = true, ExportBatch
	names, err := h.archive.ArchivedFieldNames(ctx, rec.ID, f)
	if err != nil {
		return 0, err
	}
	filters := h.accessFilters(rec.ID, q.ListSubmissions)
	filters["format"] = q.Format
	accessID, err := h.record(ctx, q.Caller, q.RequestID, SubmissionAccess{FormID: rec.ID, Action: AccessExport, Filters: filters})
	if err != nil {
		return 0, err
	}
	if err := sink.Start(ExportStart{FormName: rec.Settings.Name, FieldNames: names, At: h.clock.Now()}); err != nil {
		return 0, err
	}
	columns := make(map[string]bool, len(names))
	for _, n := range names {
		columns[n] = true
	}
	written := 0
	for {
		page, err := h.archive.ArchivedPage(ctx, rec.ID, f)
		if err != nil {
			return written, err
		}
		for _, s := range page {
			if !allColumns(s.FieldNames, columns) {
				// Accepted after the columns were listed: not part of this
				// export, whose header could not hold its fields.
				continue
			}
			entry, err := h.open(ctx, s)
			if err != nil {
				return written, err
			}
			if err := sink.Write(entry); err != nil {
				return written, err
			}
			written++
		}
		if len(page) < f.Limit {
			break
		}
		last := page[len(page)-1]
		f.After = &ArchiveCursor{At: last.AcceptedAt, ID: last.SubmissionID}
	}
	if err := sink.Finish(); err != nil {
		return written, err
	}
	return written, h.access.CountAccess(ctx, accessID, written)
}

// allColumns reports whether every one of names is a column.
func allColumns(names []string, columns map[string]bool) bool {
	for _, n := range names {
		if !columns[n] {
			return false
		}
	}
	return true
}
