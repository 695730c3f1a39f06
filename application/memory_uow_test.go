package application

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// MemoryTransactor is the application tests' unit of work: streams and the
// state a transaction writes, kept in memory. A transaction stages its
// writes and commits them together at its end, or none of them; a save
// against a stream that moved on is refused with domain.ErrConcurrency and
// the command runs again, as PostgreSQL's does. It passes the same suite
// (application/uowtest) as the PostgreSQL adapter. Exported only to the
// package's external tests, which run that suite.
type MemoryTransactor struct {
	mu             sync.Mutex
	streams        map[string][]any
	emails         map[string]string // lower-case email -> account id
	events         []RecordedEvent
	queued         []delivery.Queued
	sessions       map[string]memorySession // by token hash
	resets         map[string][]time.Time   // by lower-case email
	webhookSecrets []StoredWebhookSecret
	captchaSecrets map[string]StoredCaptchaSecret // by form id
	lastMetadata   Metadata
}

// RecordedEvent is one committed event with the metadata of its command.
type RecordedEvent struct {
	StreamID   string
	StreamType string
	Event      any
	Metadata   Metadata
}

// StreamType is the type of the stream an event belongs to ("form",
// "account", "verification"), the first part of its stored type name.
func StreamType(e any) string {
	typed, ok := e.(interface{ EventType() string })
	if !ok {
		return ""
	}
	t, _, _ := strings.Cut(typed.EventType(), ".")
	return t
}

type memorySession struct {
	accountID string
	expiresAt time.Time
}

// NewMemoryTransactor is an empty store.
func NewMemoryTransactor() *MemoryTransactor {
	return &MemoryTransactor{streams: map[string][]any{}, emails: map[string]string{}, sessions: map[string]memorySession{},
		resets: map[string][]time.Time{}, captchaSecrets: map[string]StoredCaptchaSecret{}}
}

// memoryRetries bounds the runs of one command on conflicts, as the
// PostgreSQL transactor's retries do.
const memoryRetries = 10

// InTx implements Transactor.
func (m *MemoryTransactor) InTx(ctx context.Context, md Metadata, fn func(Tx) error) error {
	var err error
	for range memoryRetries {
		m.mu.Lock()
		m.lastMetadata = md
		m.mu.Unlock()
		u := &memoryUnitOfWork{m: m, md: md, appends: map[string]*memoryAppend{}}
		if err = fn(u); err == nil {
			err = m.commit(u)
		}
		if !errors.Is(err, domain.ErrConcurrency) {
			return err
		}
	}
	return err
}

// Seed appends events to a stream as if a command had committed them
// earlier: they are not among Events.
func (m *MemoryTransactor) Seed(streamID string, events ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.streams[streamID] = append(m.streams[streamID], events...)
	for _, e := range events {
		if r, ok := e.(account.Registered); ok {
			m.emails[strings.ToLower(r.Email)] = r.AccountID
		}
	}
}

// Stream is a stream's committed history, seeded events included.
func (m *MemoryTransactor) Stream(id string) []any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.streams[id])
}

// Streams are the committed histories of every stream, by id.
func (m *MemoryTransactor) Streams() map[string][]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string][]any, len(m.streams))
	for id, h := range m.streams {
		out[id] = slices.Clone(h)
	}
	return out
}

// Events lists the committed events, oldest first.
func (m *MemoryTransactor) Events() []RecordedEvent {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.events)
}

// Metadata is the metadata of the last command run.
func (m *MemoryTransactor) Metadata() Metadata {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lastMetadata
}

// Queued lists the deliveries queued by QueueDelivery.
func (m *MemoryTransactor) Queued() []delivery.Queued {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.queued)
}

// Session says which account the session stored under tokenHash is of.
func (m *MemoryTransactor) Session(tokenHash []byte) (accountID string, expiresAt time.Time, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[string(tokenHash)]
	return s.accountID, s.expiresAt, ok
}

// SessionCount is how many sessions are stored.
func (m *MemoryTransactor) SessionCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// CaptchaSecretOf is the form's stored captcha secret.
func (m *MemoryTransactor) CaptchaSecretOf(formID string) (StoredCaptchaSecret, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.captchaSecrets[formID]
	return s, ok
}

// WebhookSecretsOf lists the form's stored webhook secrets, oldest first.
func (m *MemoryTransactor) WebhookSecretsOf(formID string) []StoredWebhookSecret {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []StoredWebhookSecret
	for _, s := range m.webhookSecrets {
		if s.FormID == formID {
			out = append(out, s)
		}
	}
	return out
}

type memoryAppend struct {
	expected int
	events   []any
}

// memoryUnitOfWork is one run of a command: what it appends to streams,
// checked against their versions when it saves and again when it commits,
// and its other writes, applied only at the commit.
type memoryUnitOfWork struct {
	m       *MemoryTransactor
	md      Metadata
	appends map[string]*memoryAppend
	order   []string
	writes  []func(*MemoryTransactor)
}

func (m *MemoryTransactor) commit(u *memoryUnitOfWork) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range u.order {
		if len(m.streams[id]) != u.appends[id].expected {
			return domain.ErrConcurrency
		}
	}
	for _, id := range u.order {
		for _, e := range u.appends[id].events {
			if r, ok := e.(account.Registered); ok {
				if owner, taken := m.emails[strings.ToLower(r.Email)]; taken && owner != r.AccountID {
					return account.ErrEmailTaken
				}
			}
		}
	}
	for _, id := range u.order {
		for _, e := range u.appends[id].events {
			m.streams[id] = append(m.streams[id], e)
			m.events = append(m.events, RecordedEvent{StreamID: id, StreamType: StreamType(e), Event: e, Metadata: u.md})
			if r, ok := e.(account.Registered); ok {
				m.emails[strings.ToLower(r.Email)] = r.AccountID
			}
		}
	}
	for _, w := range u.writes {
		w(m)
	}
	return nil
}

// history is a stream as this run sees it: committed, then its own appends.
func (u *memoryUnitOfWork) history(id string) []any {
	u.m.mu.Lock()
	out := slices.Clone(u.m.streams[id])
	u.m.mu.Unlock()
	if a := u.appends[id]; a != nil {
		out = append(out[:a.expected], a.events...)
	}
	return out
}

func (u *memoryUnitOfWork) append(id string, expected int, events []any) error {
	if len(events) == 0 {
		return nil
	}
	if len(u.history(id)) != expected {
		return domain.ErrConcurrency
	}
	if a := u.appends[id]; a != nil {
		a.events = append(a.events, events...)
		return nil
	}
	u.appends[id] = &memoryAppend{expected: expected, events: events}
	u.order = append(u.order, id)
	return nil
}

func load[E any, A any](u *memoryUnitOfWork, id, streamType string, fromHistory func([]E) (A, error)) (A, error) {
	var zero A
	h := u.history(id)
	if len(h) == 0 || StreamType(h[0]) != streamType {
		return zero, domain.ErrNotFound
	}
	events := make([]E, 0, len(h))
	for _, e := range h {
		typed, ok := e.(E)
		if !ok {
			return zero, domain.ErrNotFound
		}
		events = append(events, typed)
	}
	return fromHistory(events)
}

func anys[E any](events []E) []any {
	out := make([]any, len(events))
	for i, e := range events {
		out[i] = e
	}
	return out
}

func (u *memoryUnitOfWork) LoadForm(_ context.Context, id string) (*form.Form, error) {
	return load(u, id, "form", form.FromHistory)
}

func (u *memoryUnitOfWork) SaveForm(_ context.Context, f *form.Form) error {
	return u.append(f.ID(), f.Version(), anys(f.Changes()))
}

func (u *memoryUnitOfWork) LoadAccount(_ context.Context, id string) (*account.Account, error) {
	return load(u, id, "account", account.FromHistory)
}

func (u *memoryUnitOfWork) SaveAccount(_ context.Context, a *account.Account) error {
	for _, e := range a.Changes() {
		if r, ok := e.(account.Registered); ok {
			u.m.mu.Lock()
			owner, taken := u.m.emails[strings.ToLower(r.Email)]
			u.m.mu.Unlock()
			if taken && owner != r.AccountID {
				return account.ErrEmailTaken
			}
		}
	}
	return u.append(a.ID(), a.Version(), anys(a.Changes()))
}

func (u *memoryUnitOfWork) LoadVerification(_ context.Context, id string) (*verification.Verification, error) {
	return load(u, id, "verification", verification.FromHistory)
}

func (u *memoryUnitOfWork) SaveVerification(_ context.Context, v *verification.Verification) error {
	return u.append(v.VerificationID, v.Version(), anys(v.Changes()))
}

func (u *memoryUnitOfWork) QueueDelivery(_ context.Context, q delivery.Queued) error {
	u.writes = append(u.writes, func(m *MemoryTransactor) { m.queued = append(m.queued, q) })
	return nil
}

func (u *memoryUnitOfWork) RecentVerificationRequests(_ context.Context, kind verification.Kind, subjectID, accountID, email string,
	since time.Time) (verification.RecentRequests, error) {
	var r verification.RecentRequests
	u.m.mu.Lock()
	defer u.m.mu.Unlock()
	for _, h := range u.m.streams {
		for _, e := range h {
			q, ok := e.(verification.Requested)
			if !ok || !q.At.After(since) {
				continue
			}
			if q.SubjectID == subjectID && q.Kind == kind {
				r.ForSubject = append(r.ForSubject, q.At)
			}
			if strings.EqualFold(q.Email, email) {
				r.ForAddress = append(r.ForAddress, q.At)
			}
			if accountID != "" && q.Kind == kind && q.AccountID == accountID {
				r.ForAccount = append(r.ForAccount, q.At)
			}
		}
	}
	return r, nil
}

func (u *memoryUnitOfWork) PasswordResetRequests(_ context.Context, email string, since time.Time) ([]time.Time, error) {
	u.m.mu.Lock()
	defer u.m.mu.Unlock()
	var out []time.Time
	for _, at := range u.m.resets[strings.ToLower(email)] {
		if at.After(since) {
			out = append(out, at)
		}
	}
	return out, nil
}

func (u *memoryUnitOfWork) RecordPasswordResetRequest(_ context.Context, email string, at time.Time) error {
	key := strings.ToLower(email)
	u.writes = append(u.writes, func(m *MemoryTransactor) { m.resets[key] = append(m.resets[key], at) })
	return nil
}

func (u *memoryUnitOfWork) CreateSession(_ context.Context, tokenHash []byte, accountID string, expiresAt time.Time) error {
	key := string(tokenHash)
	u.writes = append(u.writes, func(m *MemoryTransactor) { m.sessions[key] = memorySession{accountID, expiresAt} })
	return nil
}

func (u *memoryUnitOfWork) EndSessions(_ context.Context, accountID string) error {
	u.writes = append(u.writes, func(m *MemoryTransactor) {
		for k, s := range m.sessions {
			if s.accountID == accountID {
				delete(m.sessions, k)
			}
		}
	})
	return nil
}

func (u *memoryUnitOfWork) EndSession(_ context.Context, tokenHash []byte) error {
	key := string(tokenHash)
	u.writes = append(u.writes, func(m *MemoryTransactor) { delete(m.sessions, key) })
	return nil
}

func (u *memoryUnitOfWork) StoreWebhookSecret(_ context.Context, s StoredWebhookSecret, retireAt time.Time) error {
	u.writes = append(u.writes, func(m *MemoryTransactor) {
		for i, old := range m.webhookSecrets {
			if !retireAt.IsZero() && old.FormID == s.FormID && old.ExpiresAt.IsZero() {
				m.webhookSecrets[i].ExpiresAt = retireAt
			}
		}
		m.webhookSecrets = append(m.webhookSecrets, s)
	})
	return nil
}

func (u *memoryUnitOfWork) StoreCaptchaSecret(_ context.Context, s StoredCaptchaSecret) error {
	u.writes = append(u.writes, func(m *MemoryTransactor) { m.captchaSecrets[s.FormID] = s })
	return nil
}

func (u *memoryUnitOfWork) DeleteCaptchaSecret(_ context.Context, formID string) error {
	u.writes = append(u.writes, func(m *MemoryTransactor) { delete(m.captchaSecrets, formID) })
	return nil
}
