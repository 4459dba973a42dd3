// Command reference drives the reference implementation of the format, mebo Go
// v1.9.0 (required as a module, none of its code is copied here), for two
// jobs: timing it beside our runtimes (-bench-dir, for `npm run bench` and the
// dashboard), and checking or regenerating the blobs of testdata/vectors and
// testdata/bench from their inputs (-regenerate, regenerate.go).
//
// Timing runs on the benchmark blobs of testdata/bench, with the same plan as our runtimes
// (packages/tooling/harness.mjs PLANS): warm-up, then samples of at least N ms each, the
// median and minimum per call.
//
// Each decode row times decode + Materialize (every column into slices): the
// reference's closest match to decoding into typed arrays. Each encode row
// times an encode of the blob's input with its options (encode.go), whose
// bytes are first compared with the recorded blob (`identical`). Every decode is
// first checked against the blob's input; a row whose result differs is
// marked `correct: false` with the first difference, so a reader knows what
// was timed (the reference misreads text delta timestamps after a timestamp
// of 0: the `irregular` metric of every text bench blob).
//
// GOMAXPROCS is 1 unless -procs says otherwise, and every row records it: our
// runtimes decode on one thread, and with Go's default on a 2-core machine
// the reference's garbage collector waits on a busy core (up to 4.7× slower).
//
//	reference -bench-dir DIR [-out FILE | -stream] [-quick] [-procs N]
//	reference -regenerate DIR [-write]   (see regenerate.go)
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"
)

// plan mirrors packages/tooling/harness.mjs PLANS.
type plan struct {
	samples   int
	minSample time.Duration
	warmup    time.Duration
	name      string
}

var plans = map[bool]plan{
	false: {samples: 40, minSample: 2 * time.Millisecond, warmup: 150 * time.Millisecond, name: "full"},
	true:  {samples: 30, minSample: 1 * time.Millisecond, warmup: 20 * time.Millisecond, name: "quick"},
}

type row struct {
	Config     string  `json:"config"`
	Runtime    string  `json:"runtime"`
	Op         string  `json:"op"`
	Kind       string  `json:"kind"`
	Points     int     `json:"points"`
	Bytes      int     `json:"bytes"`
	MedianNs   float64 `json:"median_ns"`
	MinNs      float64 `json:"min_ns"`
	Runs       int     `json:"runs"`
	Reps       int     `json:"reps"`
	GoMaxProcs int     `json:"gomaxprocs"`
	Go         string  `json:"go"`
	Correct    bool    `json:"correct"`
	Mismatch   string  `json:"mismatch,omitempty"`
	// Identical: an encode row's bytes equal the recorded blob's.
	Identical *bool `json:"identical,omitempty"`
}

func main() {
	benchDir := flag.String("bench-dir", "", "the benchmark data folder (testdata/bench)")
	out := flag.String("out", "", "write the rows as a JSON array to this file")
	stream := flag.Bool("stream", false, "print each row as one line of JSON on stdout as soon as it is measured")
	quick := flag.Bool("quick", false, "the quick plan (figures not for reporting)")
	procs := flag.Int("procs", 1, "GOMAXPROCS for the run")
	regenerateDir := flag.String("regenerate", "", "re-encode every case of DIR/manifest.json with the reference and compare with the recorded blobs")
	write := flag.Bool("write", false, "with -regenerate: write blobs that differ or are missing, and update the manifest")
	flag.Parse()
	if *regenerateDir != "" {
		regenerate(*regenerateDir, *write)
		return
	}
	if *benchDir == "" {
		fail("-bench-dir is required")
	}
	runtime.GOMAXPROCS(*procs)

	var m manifest
	readJSON(filepath.Join(*benchDir, "manifest.json"), &m)
	p := plans[*quick]
	var rows []row
	emit := func(r row) {
		if *stream {
			line, _ := json.Marshal(r)
			fmt.Println(string(line))
		} else {
			fmt.Fprintf(os.Stderr, "%-38s %-6s %10.1f µs  procs=%d  correct=%v %s\n", r.Config, r.Op, r.MedianNs/1e3, r.GoMaxProcs, r.Correct, r.Mismatch)
		}
		rows = append(rows, r)
	}
	for _, c := range m.Cases {
		bytes, err := os.ReadFile(filepath.Join(*benchDir, c.File))
		if err != nil {
			fail(err.Error())
		}
		var in input
		readJSON(filepath.Join(*benchDir, c.Options.Input), &in)
		expected, err := in.parse()
		if err != nil {
			fail(fmt.Sprintf("%s: %v", c.Options.Input, err))
		}
		decode := decoderFor(c.Kind)
		got, err := decode(bytes)
		r := row{Config: c.configName(), Runtime: "go-reference", Op: "decode", Kind: c.Kind, Points: expected.points(), Bytes: len(bytes),
			GoMaxProcs: runtime.GOMAXPROCS(0), Go: runtime.Version()}
		if err != nil {
			r.Mismatch = "decode failed: " + err.Error()
		} else {
			r.Mismatch = got.mismatch(expected)
			r.Correct = r.Mismatch == ""
		}
		if err == nil {
			t := measure(p, func() {
				if _, err := decode(bytes); err != nil {
					fail(err.Error())
				}
			})
			r.MedianNs, r.MinNs, r.Runs, r.Reps = t.median, t.min, p.samples, t.reps
		}
		emit(r)
		encoder, err := prepare(c, in)
		if err != nil {
			fail(fmt.Sprintf("%s: %v", c.Name, err))
		}
		encoded, err := encoder.encode()
		if err != nil {
			fail(fmt.Sprintf("%s: encode: %v", c.Name, err))
		}
		identical := string(encoded) == string(bytes)
		e := row{Config: c.configName(), Runtime: "go-reference", Op: "encode", Kind: c.Kind, Points: r.Points, Bytes: len(encoded),
			GoMaxProcs: r.GoMaxProcs, Go: r.Go, Correct: identical, Identical: &identical}
		t := measure(p, func() {
			if _, err := encoder.encode(); err != nil {
				fail(err.Error())
			}
		})
		e.MedianNs, e.MinNs, e.Runs, e.Reps = t.median, t.min, p.samples, t.reps
		emit(e)
	}
	if *out != "" {
		data, _ := json.MarshalIndent(rows, "", " ")
		if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
			fail(err.Error())
		}
	}
}

type timing struct {
	median, min float64
	reps        int
}

// measure warms f up (at least the plan's warm-up and 3 calls), then takes
// the plan's samples, each repeating f enough times to last minSample.
func measure(p plan, f func()) timing {
	start := time.Now()
	calls := 0
	for calls < 3 || time.Since(start) < p.warmup {
		f()
		calls++
	}
	perCall := float64(time.Since(start)) / float64(calls)
	reps := int(float64(p.minSample)/perCall) + 1
	times := make([]float64, p.samples)
	for s := range times {
		t0 := time.Now()
		for r := 0; r < reps; r++ {
			f()
		}
		times[s] = float64(time.Since(t0)) / float64(reps)
	}
	sort.Float64s(times)
	return timing{median: times[len(times)/2], min: times[0], reps: reps}
}

func readJSON(path string, into any) {
	data, err := os.ReadFile(path)
	if err != nil {
		fail(err.Error())
	}
	if err := json.Unmarshal(data, into); err != nil {
		fail(fmt.Sprintf("%s: %v", path, err))
	}
}

func fail(message string) {
	fmt.Fprintln(os.Stderr, "reference:", message)
	os.Exit(1)
}
