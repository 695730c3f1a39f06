package chat

import (
	"strconv"
	"strings"

	"github.com/formd/formd/domain/submission"
)

// heading is a message's first lines: "New submission to <form>", and for
// a submission the spam gate tagged, that title marked as its notification
// subject is (submission.SpamSubjectMarker, one rule for every channel) with
// the verdict's score and reasons on the line under it. The form's name and
// the reasons pass through the service's escape; the marker is fixed text.
func heading(formName string, spam *submission.SpamVerdict, escape func(string) string) string {
	title := "New submission to " + escape(formName)
	if spam == nil {
		return title
	}
	return submission.SpamSubjectMarker + title + "\n" + escape(SpamSummary(*spam))
}

// SpamSummary is the short line a chat message of a tagged submission shows
// under its marked title: "Spam score 2: reason; reason", or only the score
// when no reason was recorded. It stays one line whatever a reason holds.
func SpamSummary(v submission.SpamVerdict) string {
	line := "Spam score " + strconv.FormatFloat(v.Score, 'f', -1, 64)
	if len(v.Reasons) == 0 {
		return line
	}
	return line + ": " + strings.ReplaceAll(strings.Join(v.Reasons, "; "), "\n", " ")
}

// plain is the escape of a service that reads no markup in a message.
func plain(s string) string { return s }
