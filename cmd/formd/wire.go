//go:build wireinject

package main

import (
	"context"
	"log/slog"

	"github.com/google/wire"

	"github.com/formd/formd/adapters/auditlog"
	"github.com/formd/formd/application"
)

// buildService wires formd from its configuration.
func buildService(ctx context.Context, cfg Config, log *slog.Logger) (*Service, func(), error) {
	wire.Build(adapterSet, applicationSet, portSet)
	return nil, nil, nil
}

// buildOperator wires the use cases of the operator's commands (`formd
// grant`, `formd revoke`, `formd plan set`), and only what they need.
func buildOperator(ctx context.Context, cfg Config, log *slog.Logger) (*Operator, func(), error) {
	wire.Build(adapterSet, applicationSet, wire.Struct(new(Operator), "*"))
	return nil, nil, nil
}

// buildAuditVerify wires `formd audit verify`: the event chain and the
// checkpoints.
func buildAuditVerify(ctx context.Context, cfg Config, log *slog.Logger) (*application.VerifyAuditHandler, func(), error) {
	wire.Build(adapterSet, applicationSet)
	return nil, nil, nil
}

// buildAuditCheckpoint wires `formd audit checkpoint`: the checkpoint job,
// run once.
func buildAuditCheckpoint(ctx context.Context, cfg Config, log *slog.Logger) (*application.CheckpointAuditHandler, func(), error) {
	wire.Build(adapterSet, applicationSet)
	return nil, nil, nil
}

// buildAuditBundleVerify wires `formd audit verify --bundle`: no database,
// no network, only the bundle format.
func buildAuditBundleVerify() *application.VerifyAuditBundleHandler {
	wire.Build(application.NewVerifyAuditBundleHandler, wire.Value(auditlog.Bundles{}), wire.Bind(new(application.AuditBundles), new(auditlog.Bundles)))
	return nil
}

// buildRekey wires `formd rekey`: the sealer with every configured key and
// the stores of sealed records.
func buildRekey(ctx context.Context, cfg Config, log *slog.Logger) (*application.RekeyPayloadsHandler, func(), error) {
	wire.Build(adapterSet, applicationSet)
	return nil, nil, nil
}
