package application

import (
	"context"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
)

// CompareFormVersions is GET /v1/forms/{formId}/versions/{version}/diff/{to}.
type CompareFormVersions struct {
	Caller   Session
	FormID   string
	From, To int
}

// CompareFormVersionsHandler says how a form's settings differ between two
// of its versions.
type CompareFormVersionsHandler struct {
	read FormHistoryReader
}

// NewCompareFormVersionsHandler builds the handler; every dependency is
// required.
func NewCompareFormVersionsHandler(read FormHistoryReader) *CompareFormVersionsHandler {
	if read == nil {
		panic("application: nil dependency of CompareFormVersionsHandler")
	}
	return &CompareFormVersionsHandler{read: read}
}

// Handle lists the settings that differ from version From to version To
// (either may be the later), as the audit trail shows a change: a captcha
// secret only as hidden. A version the form has not reached is not found.
func (h *CompareFormVersionsHandler) Handle(ctx context.Context, q CompareFormVersions) ([]form.Change, error) {
	history, err := ownedFormHistory(ctx, h.read, q.Caller, account.ScopeFormsRead, q.FormID)
	if err != nil {
		return nil, err
	}
	from, err := formAtVersion(history, q.From)
	if err != nil {
		return nil, err
	}
	to, err := formAtVersion(history, q.To)
	if err != nil {
		return nil, err
	}
	changes := form.Diff(from.Settings(), to.Settings(), false)
	for i, c := range changes {
		changes[i] = form.MaskedChange(c)
	}
	return changes, nil
}
