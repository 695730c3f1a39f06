package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/formd/formd/application"
)

type callerKey struct{}

// callerOf is the session that authenticated the HTTP request a tool call
// came in; ServeHTTP puts it there before the SDK sees the request.
func callerOf(ctx context.Context) (application.Session, error) {
	session, ok := ctx.Value(callerKey{}).(application.Session)
	if !ok {
		return application.Session{}, application.ErrUnauthenticated
	}
	return session, nil
}

// authenticate turns the request's bearer credential into a session, or
// answers 401 (500 when formd itself failed) and reports false. Only the
// Authorization header counts: the dashboard's cookie would let any web
// page a signed-in person visits post to /mcp.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, requestID string) (application.Session, bool) {
	credential := ""
	if scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		credential = token
	}
	session, err := s.app.Queries.Authenticate.Handle(r.Context(), application.Authenticate{Credential: credential})
	err = s.config.Database.Unavailable(err)
	switch {
	case errors.Is(err, application.ErrUnauthenticated):
		w.Header().Set("WWW-Authenticate", `Bearer realm="formd"`)
		writeError(w, http.StatusUnauthorized, application.MsgUnauthenticated, requestID)
		return application.Session{}, false
	case errors.Is(err, application.ErrUnavailable):
		s.config.Database.Lost()
		s.unavailable(w, requestID)
		return application.Session{}, false
	case err != nil:
		s.log.Error("request failed", "requestId", requestID, "route", Path, "err", err)
		writeError(w, http.StatusInternalServerError, application.MsgInternal, requestID)
		return application.Session{}, false
	}
	return session, true
}

// errorBody is the spec's ErrorResponse, the shape /v1 answers errors in.
type errorBody struct {
	Success   bool   `json:"success"`
	Message   string `json:"message"`
	RequestID string `json:"requestId,omitempty"`
}

// writeError answers an HTTP-level failure as an ErrorResponse.
func writeError(w http.ResponseWriter, status int, message, requestID string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(errorBody{Message: message, RequestID: requestID})
}
