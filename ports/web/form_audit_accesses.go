package web

import (
	"strconv"
	"strings"
	"time"

	"github.com/formd/formd/application"
)

// accessesShown is how many of the latest reads of the archive the audit
// page lists.
const accessesShown = 50

// accessRow is one read of the submissions archive, as the audit page's
// "Who read submissions" shows it.
type accessRow struct {
	At                        time.Time
	Actor, ActorID, RequestID string
	// What says what was done; Filters what was asked for, in words.
	What, Filters string
	// Submission links the submission read; empty for a list or an export.
	Submission string
}

func accessRowsOf(formID string, accesses []application.SubmissionAccess) []accessRow {
	rows := make([]accessRow, 0, len(accesses))
	for _, a := range accesses {
		row := accessRow{At: a.At, Actor: actorLabel(a.Actor.Type), ActorID: a.Actor.ID, RequestID: a.RequestID,
			What: accessWhat(a), Filters: filtersInWords(a.Filters)}
		if a.Action == application.AccessRead && a.SubmissionID != "" {
			row.Submission = Prefix + "/forms/" + formID + "/submissions/" + a.SubmissionID
		}
		rows = append(rows, row)
	}
	return rows
}

// accessWhat says what an access did: "Listed 3 submissions", "Read a
// submission", "Exported 120 submissions", or an export that stopped before
// its end.
func accessWhat(a application.SubmissionAccess) string {
	switch a.Action {
	case application.AccessList:
		return "Listed " + submissionsCount(a.Count)
	case application.AccessRead:
		if _, file := a.Filters["attachment"]; file {
			return "Downloaded a file of a submission"
		}
		return "Read a submission"
	case application.AccessExport:
		if a.Count == nil {
			return "Export unfinished"
		}
		return "Exported " + submissionsCount(a.Count)
	}
	return a.Action
}

// submissionsCount writes a count of submissions: "1 submission", "3
// submissions"; unknown counts as "submissions".
func submissionsCount(n *int) string {
	switch {
	case n == nil:
		return "submissions"
	case *n == 1:
		return "1 submission"
	}
	return strconv.Itoa(*n) + " submissions"
}

// filtersInWords writes an access's filters for people. A searched address
// or value is kept only as its keyed hash, which says nothing to a person:
// it is named "an address" or "a value", never shown.
func filtersInWords(filters map[string]string) string {
	var words []string
	if format := filters["format"]; format != "" {
		words = append(words, "as "+strings.ToUpper(format))
	}
	if from := filters["from"]; from != "" {
		words = append(words, "from "+shownFilterTime(from))
	}
	if to := filters["to"]; to != "" {
		words = append(words, "before "+shownFilterTime(to))
	}
	if status := filters["status"]; status != "" {
		words = append(words, "status "+status)
	}
	if _, ok := filters["email"]; ok {
		words = append(words, "submitter: an address")
	}
	if field := filters["field"]; field != "" {
		words = append(words, "field "+field+": a value")
	}
	if _, ok := filters["cursor"]; ok {
		words = append(words, "a next page")
	}
	return strings.Join(words, ", ")
}

// shownFilterTime writes a filter's time (RFC 3339) for people, or as it
// is when it is none.
func shownFilterTime(raw string) string {
	t, err := time.Parse(time.RFC3339, raw)
	if err != nil {
		return raw
	}
	return humanTime(t)
}
