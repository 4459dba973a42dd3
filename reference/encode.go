package main

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/arloliu/mebo/blob"
	"github.com/arloliu/mebo/format"
)

var encodings = map[string]format.EncodingType{
	"raw": format.TypeRaw, "delta": format.TypeDelta, "deltapacked": format.TypeDeltaPacked,
	"gorilla": format.TypeGorilla, "chimp": format.TypeChimp, "alp": format.TypeALP,
}

var codecs = map[string]format.CompressionType{
	"none": format.CompressionNone, "zstd": format.CompressionZstd, "s2": format.CompressionS2, "lz4": format.CompressionLZ4,
}

// encoderInput is one case's input parsed for the reference encoder, so that
// an encode (timed by the bench, compared by regenerate) is the encoder's
// calls alone: no JSON, no number parsing.
type encoderInput struct {
	c          benchCase
	start      time.Time
	identifier string
	tags       bool
	bigEndian  bool
	names      []string
	ids        []uint64
	timestamps [][]int64
	values     [][]float64
	texts      [][]string
	tagColumns [][]string
}

// prepare parses a case's input for an encode with the case's options.
func prepare(c benchCase, in input) (*encoderInput, error) {
	startMicros, err := strconv.ParseInt(in.StartTimeMicros, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("startTimeMicros: %w", err)
	}
	expected, err := in.parse()
	if err != nil {
		return nil, err
	}
	p := &encoderInput{c: c, start: time.UnixMicro(startMicros), identifier: in.Identifier, tags: c.Options.Tags, bigEndian: c.Options.BigEndian}
	for i, m := range in.Metrics {
		values := make([]float64, len(expected[i].bits))
		for j, b := range expected[i].bits {
			values[j] = math.Float64frombits(b)
		}
		tagColumn := m.Tags
		if tagColumn == nil {
			tagColumn = make([]string, len(expected[i].timestamps))
		}
		p.names = append(p.names, m.Name)
		p.ids = append(p.ids, expected[i].id)
		p.timestamps = append(p.timestamps, expected[i].timestamps)
		p.values = append(p.values, values)
		p.texts = append(p.texts, m.Texts)
		p.tagColumns = append(p.tagColumns, tagColumn)
	}
	return p, nil
}

// start begins metric i on an encoder of either kind, by id or by name as the input says.
func (p *encoderInput) startMetric(i int, byID func(uint64, int) error, byName func(string, int) error) error {
	if p.identifier == "id" {
		return byID(p.ids[i], len(p.timestamps[i]))
	}
	return byName(p.names[i], len(p.timestamps[i]))
}

// encode writes the input with the case's options through the reference
// encoder: NumericEncoder with AddDataPoints per metric, or TextEncoder with
// AddDataPoint per point (it has no batch call), then Finish.
func (p *encoderInput) encode() ([]byte, error) {
	o := p.c.Options
	if p.c.Kind == "text" {
		opts := []blob.TextEncoderOption{blob.WithTextTimestampEncoding(encodings[o.TimestampEncoding]), blob.WithTextDataCompression(codecs[o.DataCompression]), blob.WithTextTagsEnabled(p.tags)}
		if p.bigEndian {
			opts = append(opts, blob.WithTextBigEndian())
		}
		enc, err := blob.NewTextEncoder(p.start, opts...)
		if err != nil {
			return nil, err
		}
		for i := range p.timestamps {
			if err := p.startMetric(i, enc.StartMetricID, enc.StartMetricName); err != nil {
				return nil, err
			}
			ts, tags := p.timestamps[i], p.tagColumns[i]
			for j, text := range p.texts[i] {
				if err := enc.AddDataPoint(ts[j], text, tags[j]); err != nil {
					return nil, err
				}
			}
			if err := enc.EndMetric(); err != nil {
				return nil, err
			}
		}
		return enc.Finish()
	}
	opts := []blob.NumericEncoderOption{
		blob.WithTimestampEncoding(encodings[o.TimestampEncoding]), blob.WithValueEncoding(encodings[o.ValueEncoding]),
		blob.WithTimestampCompression(codecs[o.TimestampCompression]), blob.WithValueCompression(codecs[o.ValueCompression]),
		blob.WithTagsEnabled(p.tags),
	}
	if p.bigEndian {
		opts = append(opts, blob.WithBigEndian())
	}
	switch o.Layout {
	case "v2":
		opts = append(opts, blob.WithBlobLayoutV2())
	case "v2-shared":
		opts = append(opts, blob.WithSharedTimestamps())
	}
	enc, err := blob.NewNumericEncoder(p.start, opts...)
	if err != nil {
		return nil, err
	}
	for i := range p.timestamps {
		if err := p.startMetric(i, enc.StartMetricID, enc.StartMetricName); err != nil {
			return nil, err
		}
		if err := enc.AddDataPoints(p.timestamps[i], p.values[i], p.tagColumns[i]); err != nil {
			return nil, err
		}
		if err := enc.EndMetric(); err != nil {
			return nil, err
		}
	}
	return enc.Finish()
}
