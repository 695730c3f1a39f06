package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/ports/portkit"
)

// formVersionJSON is a form as one version of its stream left it, with the
// event that made that version.
type formVersionJSON struct {
	Version    int       `json:"version"`
	Type       string    `json:"type"`
	RecordedAt time.Time `json:"recordedAt"`
	Actor      actorJSON `json:"actor"`
	// Settings is the form as PATCH answers it, as it was at Version.
	Settings portkit.Form `json:"settings"`
}

// versionDiffJSON is how a form's settings differ from one version to another.
type versionDiffJSON struct {
	From    int          `json:"from"`
	To      int          `json:"to"`
	Changes []changeJSON `json:"changes"`
}

// restoreRequest is POST /v1/forms/{formId}/restore.
type restoreRequest struct {
	Version *int `json:"version"`
}

// versionParam reads a version path parameter; anything but a positive
// number is a version no form has.
func (s *Server) versionParam(c *gin.Context, name string) (int, bool) {
	n, err := strconv.Atoi(c.Param(name))
	if err != nil || n < 1 {
		s.respondError(c, domain.ErrNotFound)
		return 0, false
	}
	return n, true
}

func (s *Server) getFormVersion(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	n, ok := s.versionParam(c, "version")
	if !ok {
		return
	}
	v, err := s.app.Queries.FormVersion.Handle(c.Request.Context(), application.FormVersion{Caller: sessionOf(c), FormID: id, Version: n})
	if err != nil {
		s.respondError(c, err)
		return
	}
	e := v.Entry
	c.JSON(http.StatusOK, gin.H{"version": formVersionJSON{Version: e.Version, Type: e.Type, RecordedAt: e.RecordedAt,
		Actor: actorOf(e), Settings: portkit.PresentForm(v.Form)}})
}

func (s *Server) diffFormVersions(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	from, ok := s.versionParam(c, "version")
	if !ok {
		return
	}
	to, ok := s.versionParam(c, "to")
	if !ok {
		return
	}
	changes, err := s.app.Queries.CompareFormVersions.Handle(c.Request.Context(),
		application.CompareFormVersions{Caller: sessionOf(c), FormID: id, From: from, To: to})
	if err != nil {
		s.respondError(c, err)
		return
	}
	out := make([]changeJSON, len(changes))
	for i, ch := range changes {
		out[i] = changeJSON(ch)
	}
	c.JSON(http.StatusOK, gin.H{"diff": versionDiffJSON{From: from, To: to, Changes: out}})
}

func (s *Server) restoreFormVersion(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	var req restoreRequest
	if !s.decodeJSON(c, &req) {
		return
	}
	if req.Version == nil {
		s.respondError(c, domain.Invalid("version", "version is required: the version whose settings to restore"))
		return
	}
	f, err := s.app.Commands.RestoreFormVersion.Handle(c.Request.Context(), application.RestoreFormVersion{
		Caller: sessionOf(c), RequestID: requestIDOf(c), Language: s.requestLanguage(c), FormID: id, Version: *req.Version,
	})
	if err != nil {
		s.respondError(c, err)
		return
	}
	s.respondFormChange(c, f)
}
