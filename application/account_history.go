package application

import (
	"context"

	"github.com/formd/formd/domain/account"
)

// AccountHistory is GET /v1/account/events: the caller's account's audit
// trail (registration, verification, plan changes, grants, revocations).
type AccountHistory struct {
	Caller Session
}

// AccountHistoryHandler reads the account's events.
type AccountHistoryHandler struct {
	read  HistoryReader
	names ActorNameReader
}

// NewAccountHistoryHandler builds the handler; every dependency is required.
func NewAccountHistoryHandler(read HistoryReader, names ActorNameReader) *AccountHistoryHandler {
	if read == nil || names == nil {
		panic("application: nil dependency of AccountHistoryHandler")
	}
	return &AccountHistoryHandler{read: read, names: names}
}

// Handle returns the caller's account's events in order, each with its
// actor's name.
func (h *AccountHistoryHandler) Handle(ctx context.Context, q AccountHistory) ([]HistoryEntry, error) {
	// The account is above any workspace: a workspace token does not see it.
	if err := q.Caller.Access.RequireSession(account.ErrTokensSeeNoAccount); err != nil {
		return nil, err
	}
	history, err := h.read.StreamHistory(ctx, q.Caller.AccountID)
	if err != nil {
		return nil, err
	}
	return history, nameActors(ctx, h.names, history)
}
