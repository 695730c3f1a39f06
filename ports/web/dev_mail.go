package web

import (
	"net/http"
	"regexp"
	"time"

	"github.com/formd/formd/application"
)

// devMailPath shows the mails formd spooled instead of sending them, in
// development mode only: a newcomer after `make run` follows the
// verification links from here rather than digging in .data/mail.
const devMailPath = Prefix + "/dev/mail"

// spooledMail is one mail as the page shows it, its text cut into plain
// parts and links.
type spooledMail struct {
	Name, To, Subject string
	Date              time.Time
	Text              []textPart
}

// textPart is a run of text, or a link when URL is set.
type textPart struct {
	Text string
	URL  bool
}

var linkInText = regexp.MustCompile(`https?://[^\s<>"]+`)

// splitLinks cuts text into plain runs and http(s) links, so the template
// can make the links clickable while escaping everything.
func splitLinks(text string) []textPart {
	var parts []textPart
	last := 0
	for _, m := range linkInText.FindAllStringIndex(text, -1) {
		if m[0] > last {
			parts = append(parts, textPart{Text: text[last:m[0]]})
		}
		parts = append(parts, textPart{Text: text[m[0]:m[1]], URL: true})
		last = m[1]
	}
	if last < len(text) {
		parts = append(parts, textPart{Text: text[last:]})
	}
	return parts
}

// showDevMail lists the newest spooled mails; 404 outside development mode.
func (s *Server) showDevMail(w http.ResponseWriter, r *http.Request) {
	if !s.app.Queries.DevelopmentMail.Available() {
		s.notFound(w, r)
		return
	}
	messages, err := s.app.Queries.DevelopmentMail.Handle(r.Context(), application.ReadDevelopmentMail{Limit: 50})
	if err != nil {
		s.log.Error("reading the development mail spool", "err", err)
		s.errorPage(w, r, http.StatusInternalServerError, "")
		return
	}
	mails := make([]spooledMail, len(messages))
	for i, m := range messages {
		mails[i] = spooledMail{Name: m.Name, To: m.To, Subject: m.Subject, Date: m.Date, Text: splitLinks(m.Text)}
	}
	v, _ := s.visitorOf(r)
	s.render(w, r, http.StatusOK, "dev-mail", view{Title: "Development mail", Visitor: v, Data: mails})
}
