//go:build wireinject

package main

import (
	"context"
	"log/slog"

	"github.com/google/wire"
)

// buildService wires formd from its configuration.
func buildService(ctx context.Context, cfg Config, log *slog.Logger) (*Service, func(), error) {
	wire.Build(adapterSet, applicationSet, portSet)
	return nil, nil, nil
}
