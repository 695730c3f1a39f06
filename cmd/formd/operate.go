package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/user"
	"strings"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// Operator holds the use cases of the operator's commands.
type Operator struct {
	Grant   *application.GrantFeatureHandler
	Revoke  *application.RevokeFeatureHandler
	SetPlan *application.SetPlanHandler
}

// operate runs `formd plan set`, `formd grant` or `formd revoke` as an
// application command, so each change is an event on the account's stream
// with the operator as its actor, and says what it did.
func operate(ctx context.Context, cfg Config, log *slog.Logger, args []string) error {
	var run func(*Operator) error
	var done string
	switch {
	case args[0] == "plan" && len(args) == 4 && args[1] == "set":
		email, plan := args[2], args[3]
		run = func(o *Operator) error {
			return o.SetPlan.Handle(ctx, application.SetPlan{Email: email, Plan: plan, Operator: operator()})
		}
		done = fmt.Sprintf("%s is on the %s plan", email, strings.ToLower(strings.TrimSpace(plan)))
	case args[0] == "grant" && len(args) == 3:
		email, feature := args[1], args[2]
		run = func(o *Operator) error {
			return o.Grant.Handle(ctx, application.GrantFeature{Email: email, Feature: feature, Operator: operator()})
		}
		done = fmt.Sprintf("%s holds %s", email, strings.TrimSpace(feature))
	case args[0] == "revoke" && len(args) == 3:
		email, feature := args[1], args[2]
		run = func(o *Operator) error {
			return o.Revoke.Handle(ctx, application.RevokeFeature{Email: email, Feature: feature, Operator: operator()})
		}
		done = fmt.Sprintf("%s no longer has a grant of %s", email, strings.TrimSpace(feature))
	default:
		return errors.New("usage: formd plan set <account email> <free|pro|lifetime>, formd grant <account email> <feature>, formd revoke <account email> <feature>")
	}
	o, cleanup, err := buildOperator(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := run(o); err != nil {
		if errors.Is(err, domain.ErrNotFound) {
			return errors.New("no account has that email")
		}
		return err
	}
	fmt.Println(done)
	return nil
}

// operator names who runs the command line: the OS user, else "cli".
func operator() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "cli"
}
