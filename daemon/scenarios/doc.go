// Package scenarios holds the daemon's route-level tests and nothing else:
// each test builds the whole daemon (daemon.New over a real store in a
// temporary folder) and drives it through its real router as guests,
// hosts, booths and walls do, checking every answer against
// api/openapi.yaml. The harness is the test kit daemon/daemontest;
// harness_test.go gives its helpers the scenarios' short names. The daemon
// package itself keeps only the tests of its wiring's internals.
package scenarios
