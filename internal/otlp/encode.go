package otlp

import (
	"math"
	"time"
)

// The OTLP messages moat sends, encoded field by field (wire.go) rather than through the
// generated types of go.opentelemetry.io/proto/otlp: those register their descriptors at
// init (about 60 KB and 2 ms, measured), which every process of the moat binary (a hook
// runs one per tool call) would pay for, though only the daemon exports. The field numbers are those of
// opentelemetry-proto v1; the tests decode what is encoded here with the generated types.
//
// A request body is a LogsData or MetricsData message, which the protocol defines as
// wire-compatible with ExportLogsServiceRequest and ExportMetricsServiceRequest.

// Field numbers, by message.
const (
	// common.v1.AnyValue
	anyString = 1
	anyBool   = 2
	anyInt    = 3
	// common.v1.KeyValue
	kvKey   = 1
	kvValue = 2
	// common.v1.InstrumentationScope
	scopeName    = 1
	scopeVersion = 2
	// resource.v1.Resource
	resourceAttributes = 1

	// logs.v1.LogsData, ResourceLogs, ScopeLogs, LogRecord
	logsDataResourceLogs  = 1
	resourceLogsResource  = 1
	resourceLogsScopeLogs = 2
	scopeLogsScope        = 1
	scopeLogsLogRecords   = 2
	logTime               = 1
	logSeverityNumber     = 2
	logSeverityText       = 3
	logBody               = 5
	logAttributes         = 6
	logObservedTime       = 11
	logEventName          = 12

	// metrics.v1.MetricsData, ResourceMetrics, ScopeMetrics, Metric
	metricsDataResourceMetrics = 1
	resourceMetricsResource    = 1
	resourceMetricsScope       = 2
	scopeMetricsScope          = 1
	scopeMetricsMetrics        = 2
	metricName                 = 1
	metricDescription          = 2
	metricUnit                 = 3
	metricSum                  = 7
	metricHistogram            = 9
	// metrics.v1.Sum and Histogram
	sumDataPoints         = 1
	sumTemporality        = 2
	sumMonotonic          = 3
	histogramDataPoints   = 1
	histogramTemporality  = 2
	temporalityCumulative = 2
	// metrics.v1.NumberDataPoint
	numberStart      = 2
	numberTime       = 3
	numberAsInt      = 6
	numberAttributes = 7
	// metrics.v1.HistogramDataPoint
	histStart      = 2
	histTime       = 3
	histCount      = 4
	histSum        = 5
	histBuckets    = 6
	histBounds     = 7
	histAttributes = 9
	histMin        = 11
	histMax        = 12
)

// Severity numbers of logs.v1.SeverityNumber.
const (
	severityDebug = 5
	severityInfo  = 9
	severityWarn  = 13
	severityError = 17
)

// attr is one attribute: a key with a string, int or bool value.
type attr struct {
	key  string
	kind byte // 's', 'i' or 'b'
	str  string
	num  int64
}

func strAttr(k, v string) attr { return attr{key: k, kind: 's', str: v} }
func intAttr(k string, v int64) attr {
	return attr{key: k, kind: 'i', num: v}
}
func boolAttr(k string, v bool) attr {
	a := attr{key: k, kind: 'b'}
	if v {
		a.num = 1
	}
	return a
}

// message appends field num holding the message body writes.
func message(b []byte, num number, body func([]byte) []byte) []byte {
	b = appendTag(b, num, wireBytes)
	// The length comes first: the body is written after a reserved byte, and moved
	// when its length needs more than one.
	start := len(b)
	b = append(b, 0)
	b = body(b)
	n := len(b) - start - 1
	if size := sizeVarint(uint64(n)); size > 1 {
		b = append(b, make([]byte, size-1)...)
		copy(b[start+size:], b[start+1:start+1+n])
	}
	appendVarint(b[:start], uint64(n))
	return b
}

func stringField(b []byte, num number, s string) []byte {
	if s == "" {
		return b
	}
	b = appendTag(b, num, wireBytes)
	return appendString(b, s)
}

func fixed64Field(b []byte, num number, v uint64) []byte {
	b = appendTag(b, num, wireFixed64)
	return appendFixed64(b, v)
}

func doubleField(b []byte, num number, v float64) []byte {
	return fixed64Field(b, num, math.Float64bits(v))
}

func varintField(b []byte, num number, v uint64) []byte {
	b = appendTag(b, num, wireVarint)
	return appendVarint(b, v)
}

func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}

// anyValue appends an AnyValue holding a's value as field num.
func appendAnyValue(b []byte, num number, a attr) []byte {
	return message(b, num, func(b []byte) []byte {
		switch a.kind {
		case 'i':
			return varintField(b, anyInt, uint64(a.num))
		case 'b':
			return varintField(b, anyBool, uint64(a.num))
		default:
			// An empty string is still a value: written, not left out.
			b = appendTag(b, anyString, wireBytes)
			return appendString(b, a.str)
		}
	})
}

// appendAttrs appends attrs as repeated KeyValue field num.
func appendAttrs(b []byte, num number, attrs []attr) []byte {
	for _, a := range attrs {
		b = message(b, num, func(b []byte) []byte {
			b = stringField(b, kvKey, a.key)
			return appendAnyValue(b, kvValue, a)
		})
	}
	return b
}

func appendResource(b []byte, num number, attrs []attr) []byte {
	return message(b, num, func(b []byte) []byte { return appendAttrs(b, resourceAttributes, attrs) })
}

func appendScope(b []byte, num number, version string) []byte {
	return message(b, num, func(b []byte) []byte {
		b = stringField(b, scopeName, scopeNameMoat)
		return stringField(b, scopeVersion, version)
	})
}

// logRecord is one log record as it is exported.
type logRecord struct {
	time, observed time.Time
	severity       uint64
	severityText   string
	body           string
	attrs          []attr
}

// resourceLogs are the records of one resource (one agent's).
type resourceLogs struct {
	resource []attr
	records  []logRecord
}

// encodeLogs encodes a LogsData message.
func encodeLogs(groups []resourceLogs, version string) []byte {
	var b []byte
	for _, g := range groups {
		b = message(b, logsDataResourceLogs, func(b []byte) []byte {
			b = appendResource(b, resourceLogsResource, g.resource)
			return message(b, resourceLogsScopeLogs, func(b []byte) []byte {
				b = appendScope(b, scopeLogsScope, version)
				for _, r := range g.records {
					b = message(b, scopeLogsLogRecords, func(b []byte) []byte {
						b = fixed64Field(b, logTime, unixNano(r.time))
						b = varintField(b, logSeverityNumber, r.severity)
						b = stringField(b, logSeverityText, r.severityText)
						b = message(b, logBody, func(b []byte) []byte {
							b = appendTag(b, anyString, wireBytes)
							return appendString(b, r.body)
						})
						b = appendAttrs(b, logAttributes, r.attrs)
						b = fixed64Field(b, logObservedTime, unixNano(r.observed))
						return stringField(b, logEventName, eventDecision)
					})
				}
				return b
			})
		})
	}
	return b
}

// counterPoint is one data point of a cumulative monotonic integer sum.
type counterPoint struct {
	attrs []attr
	value int64
}

// histogramPoint is one data point of a cumulative explicit-bucket histogram.
type histogramPoint struct {
	attrs    []attr
	count    uint64
	sum      float64
	min, max float64
	buckets  []uint64 // len(bounds)+1
}

// metric is one metric: a sum when counters is set, else a histogram.
type metric struct {
	name, description, unit string
	counters                []counterPoint
	histograms              []histogramPoint
	bounds                  []float64
}

// resourceMetrics are the metrics of one resource.
type resourceMetrics struct {
	resource []attr
	metrics  []metric
}

// encodeMetrics encodes a MetricsData message; start is when the cumulative figures
// began, now when they were read.
func encodeMetrics(groups []resourceMetrics, version string, start, now time.Time) []byte {
	var b []byte
	for _, g := range groups {
		b = message(b, metricsDataResourceMetrics, func(b []byte) []byte {
			b = appendResource(b, resourceMetricsResource, g.resource)
			return message(b, resourceMetricsScope, func(b []byte) []byte {
				b = appendScope(b, scopeMetricsScope, version)
				for _, m := range g.metrics {
					b = message(b, scopeMetricsMetrics, func(b []byte) []byte {
						b = stringField(b, metricName, m.name)
						b = stringField(b, metricDescription, m.description)
						b = stringField(b, metricUnit, m.unit)
						if m.histograms == nil {
							return message(b, metricSum, func(b []byte) []byte {
								for _, p := range m.counters {
									b = message(b, sumDataPoints, func(b []byte) []byte {
										b = fixed64Field(b, numberStart, unixNano(start))
										b = fixed64Field(b, numberTime, unixNano(now))
										b = fixed64Field(b, numberAsInt, uint64(p.value))
										return appendAttrs(b, numberAttributes, p.attrs)
									})
								}
								b = varintField(b, sumTemporality, temporalityCumulative)
								return varintField(b, sumMonotonic, 1)
							})
						}
						return message(b, metricHistogram, func(b []byte) []byte {
							for _, p := range m.histograms {
								b = message(b, histogramDataPoints, func(b []byte) []byte {
									b = fixed64Field(b, histStart, unixNano(start))
									b = fixed64Field(b, histTime, unixNano(now))
									b = fixed64Field(b, histCount, p.count)
									b = doubleField(b, histSum, p.sum)
									b = message(b, histBuckets, func(b []byte) []byte {
										for _, c := range p.buckets {
											b = appendFixed64(b, c)
										}
										return b
									})
									b = message(b, histBounds, func(b []byte) []byte {
										for _, x := range m.bounds {
											b = appendFixed64(b, math.Float64bits(x))
										}
										return b
									})
									b = appendAttrs(b, histAttributes, p.attrs)
									if p.count > 0 {
										b = doubleField(b, histMin, p.min)
										b = doubleField(b, histMax, p.max)
									}
									return b
								})
							}
							return varintField(b, histogramTemporality, temporalityCumulative)
						})
					})
				}
				return b
			})
		})
	}
	return b
}
