package glob

// TouchesTree reports whether an operation on the whole tree at dir (rm -rf dir) touches
// what the pattern names: the pattern matches dir, or it names a path below dir by way of
// dir's own name. A pattern that can match a name at any depth ("/**/.env") therefore
// touches /home/u/proj/.env but not the tree /home/u/proj, since whether that tree holds
// such a file is unknown; while "/home/*/.ssh/**" touches the trees /, /home and /home/u.
// The root touches every pattern. Like Match, it expects an absolute, clean dir.
func (p *Path) TouchesTree(dir string) bool {
	if dir == "" || dir[0] != '/' {
		return false
	}
	if dir == "/" || p.Match(dir) {
		return true
	}
	if p.pre != "" && !p.under(dir, p.pre) && !p.under(p.pre, dir) {
		// dir is neither below the pattern's literal start nor on the way to it.
		return false
	}
	if len(p.segs) < 64 {
		return p.touchesBits(dir)
	}
	// Track the pattern positions reachable after each of dir's segments, and which of
	// them were reached by matching that segment with a segment of its own (not absorbed
	// by a "**"). Patterns of 64 segments or more are tracked in slices.
	n := len(p.segs)
	cur := make([]bool, n+1)
	next := make([]bool, n+1)
	explicit := make([]bool, n+1)
	cur[0] = true
	closeOver(p.segs, cur)
	for pos := firstSegment(dir); pos <= len(dir); {
		seg, after := nextSegment(dir, pos)
		clear(next)
		clear(explicit)
		for pi := 0; pi < n; pi++ {
			if !cur[pi] {
				continue
			}
			s := &p.segs[pi]
			if s.doubleStar {
				next[pi] = true
				continue
			}
			if s.m.match(seg, p.fold) {
				next[pi+1] = true
				explicit[pi+1] = true
			}
		}
		pos = after
		if pos > len(dir) {
			// dir's last segment: it must have been matched by a segment of the pattern,
			// with pattern left to name something below it.
			for pi := 0; pi < n; pi++ {
				if explicit[pi] {
					return true
				}
			}
			return false
		}
		closeOver(p.segs, next)
		cur, next = next, cur
	}
	return false
}

// closeOver adds the positions reachable by letting a "**" match zero segments.
func closeOver(segs []segment, set []bool) {
	for pi := 0; pi < len(segs); pi++ {
		if set[pi] && segs[pi].doubleStar {
			set[pi+1] = true
		}
	}
}

// touchesBits is TouchesTree for patterns of fewer than 64 segments, with the sets of
// positions kept in words rather than slices: it runs for every recursive access against
// every pattern of a path set, and allocates nothing (BenchmarkPathTouches).
func (p *Path) touchesBits(dir string) bool {
	n := len(p.segs)
	cur := closeOverBits(p.segs, 1)
	for pos := firstSegment(dir); pos <= len(dir); {
		seg, after := nextSegment(dir, pos)
		var next, explicit uint64
		for pi := 0; pi < n; pi++ {
			if cur&(1<<pi) == 0 {
				continue
			}
			s := &p.segs[pi]
			if s.doubleStar {
				next |= 1 << pi
				continue
			}
			if s.m.match(seg, p.fold) {
				next |= 1 << (pi + 1)
				explicit |= 1 << (pi + 1)
			}
		}
		pos = after
		if pos > len(dir) {
			// dir's last segment: it must have been matched by a segment of the pattern,
			// with pattern left to name something below it.
			return explicit&(1<<n-1) != 0
		}
		cur = closeOverBits(p.segs, next)
	}
	return false
}

// closeOverBits is closeOver for a set kept in a word.
func closeOverBits(segs []segment, set uint64) uint64 {
	for pi := 0; pi < len(segs); pi++ {
		if set&(1<<pi) != 0 && segs[pi].doubleStar {
			set |= 1 << (pi + 1)
		}
	}
	return set
}
