#!/usr/bin/env python3
"""Checks a JSON document against a JSON Schema (the subset our schemas use).

Usage: check_schema.py SCHEMA.json DOC.json

Debian 12 has no python3-jsonschema here, so this implements the keywords
docs/report-schema.json and the speedscope schema use: type (one or a
list), properties, required, additionalProperties (false or a schema),
items, minItems, maxItems, enum, const, minimum, maximum, pattern, oneOf,
anyOf, allOf, $ref to "#/definitions/..." or "#/$defs/...". An unknown
keyword is an error, so the checker never passes a schema it cannot read.
Prints "ok" or every violation with its JSON path, exit 1.
"""
import json
import re
import sys

KNOWN = {'$schema', '$id', '$ref', 'title', 'description', '$defs',
         'definitions', 'type', 'properties', 'required',
         'additionalProperties', 'items', 'minItems', 'maxItems', 'enum',
         'const', 'minimum', 'maximum', 'pattern', 'oneOf', 'anyOf', 'allOf',
         '$comment', 'default', 'examples'}


def type_ok(v, t):
    if t == 'null':
        return v is None
    if t == 'boolean':
        return isinstance(v, bool)
    if t == 'integer':
        return isinstance(v, int) and not isinstance(v, bool)
    if t == 'number':
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == 'string':
        return isinstance(v, str)
    if t == 'array':
        return isinstance(v, list)
    if t == 'object':
        return isinstance(v, dict)
    raise SystemExit('unknown type ' + t)


def check(root, s, v, path, errs):
    if s is True or s == {}:
        return
    if s is False:
        errs.append(path + ': not allowed')
        return
    unknown = set(s) - KNOWN
    if unknown:
        raise SystemExit('schema keyword(s) not implemented: %s' % unknown)
    if '$ref' in s:
        ref = s['$ref']
        assert ref.startswith('#/'), ref
        target = root
        for part in ref[2:].split('/'):
            target = target[part]
        check(root, target, v, path, errs)
    if 'type' in s:
        ts = s['type'] if isinstance(s['type'], list) else [s['type']]
        if not any(type_ok(v, t) for t in ts):
            errs.append('%s: expected %s, found %s' % (path, '/'.join(ts),
                                                      json.dumps(v)[:60]))
            return
    if 'const' in s and v != s['const']:
        errs.append('%s: expected %r' % (path, s['const']))
    if 'enum' in s and v not in s['enum']:
        errs.append('%s: %r not in %r' % (path, v, s['enum']))
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if 'minimum' in s and v < s['minimum']:
            errs.append('%s: %r < %r' % (path, v, s['minimum']))
        if 'maximum' in s and v > s['maximum']:
            errs.append('%s: %r > %r' % (path, v, s['maximum']))
    if isinstance(v, str) and 'pattern' in s and not re.search(s['pattern'], v):
        errs.append('%s: %r does not match %s' % (path, v, s['pattern']))
    if isinstance(v, dict):
        props = s.get('properties', {})
        for r in s.get('required', []):
            if r not in v:
                errs.append('%s: missing "%s"' % (path, r))
        for k, x in v.items():
            if k in props:
                check(root, props[k], x, path + '.' + k, errs)
            elif 'additionalProperties' in s:
                check(root, s['additionalProperties'], x, path + '.' + k, errs)
    if isinstance(v, list):
        if 'minItems' in s and len(v) < s['minItems']:
            errs.append('%s: fewer than %d items' % (path, s['minItems']))
        if 'maxItems' in s and len(v) > s['maxItems']:
            errs.append('%s: more than %d items' % (path, s['maxItems']))
        if 'items' in s:
            for i, x in enumerate(v):
                check(root, s['items'], x, '%s[%d]' % (path, i), errs)
    for key in ('oneOf', 'anyOf'):
        if key in s:
            good = 0
            for sub in s[key]:
                e = []
                check(root, sub, v, path, e)
                good += not e
            if (key == 'oneOf' and good != 1) or (key == 'anyOf' and not good):
                errs.append('%s: %d of the %s alternatives match' % (path, good, key))
    for sub in s.get('allOf', []):
        check(root, sub, v, path, errs)


def main():
    schema = json.load(open(sys.argv[1]))
    doc = json.load(open(sys.argv[2]))
    errs = []
    check(schema, schema, doc, '$', errs)
    for e in errs[:20]:
        print(e)
    if errs:
        sys.exit(1)
    print('ok')


main()
