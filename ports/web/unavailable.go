package web

import (
	"net/http"
	"strings"

	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/portkit"
)

// needsDatabase reports whether a dashboard request needs the database:
// every page does (its session is there), the static assets do not.
func needsDatabase(r *http.Request) bool {
	return !strings.HasPrefix(r.URL.Path, Prefix+"/static/")
}

// unavailable is the dashboard's outage answer: the 500 page, saying the
// service is briefly unavailable and to try again, with Retry-After. It
// shows no visitor: finding one would ask the database.
func (s *Server) unavailable(w http.ResponseWriter, r *http.Request) {
	s.config.Refusals.RefusedUnavailable(application.SurfaceDashboard)
	portkit.SetRetryAfter(w.Header(), application.UnavailableRetryAfter)
	s.render(w, r, http.StatusInternalServerError, "error",
		view{Title: "Briefly unavailable", Alert: application.MsgUnavailable, Data: http.StatusInternalServerError})
}
