//go:build wireinject

package main

import (
	"context"
	"log/slog"

	"github.com/google/wire"

	"github.com/formd/formd/application"
)

// buildService wires formd from its configuration.
func buildService(ctx context.Context, cfg Config, log *slog.Logger) (*Service, func(), error) {
	wire.Build(adapterSet, applicationSet, portSet)
	return nil, nil, nil
}

// buildGrant wires the one use case `formd grant` runs, and only what it needs.
func buildGrant(ctx context.Context, cfg Config, log *slog.Logger) (*application.GrantFeatureHandler, func(), error) {
	wire.Build(adapterSet, applicationSet)
	return nil, nil, nil
}
