//go:build race

package testtool

// RaceEnabled says whether the test binary was built with -race.
const RaceEnabled = true
