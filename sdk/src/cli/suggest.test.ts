import { expect, it } from 'vitest';
import { closest, didYouMean, distance } from './suggest.js';

it('measures edits and suggests the nearest names first', () => {
  expect(distance('allpage', 'allpages')).toBe(1);
  expect(distance('ALLPAGES', 'allpages')).toBe(0);
  expect(closest('allpage', ['allpages', 'allimages', 'allusers', 'backlinks'])).toEqual(['allpages']);
  expect(closest('alpages', ['allpages', 'allimages', 'pages'])).toEqual(['allpages', 'pages']);
  expect(closest('revison', ['revisions', 'recentchanges'])).toEqual(['revisions']);
  expect(closest('categ', ['categories', 'categoryinfo', 'categorymembers', 'allpages'])).toEqual([
    'categories',
    'categoryinfo',
    'categorymembers',
  ]);
  expect(didYouMean('zzzzzz', ['allpages'])).toBe('');
  expect(didYouMean('debat', ['debate', 'ask'])).toBe(' (did you mean debate?)');
});
