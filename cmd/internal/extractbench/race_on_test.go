//go:build race

package extractbench

// raceDetector reports whether the tests run with the race detector.
const raceDetector = true
