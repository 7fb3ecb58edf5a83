-- Bombs played, by kind and number of cards (stars), per played hand.
with totals as (select game, variant, setting, count(*) as hands from played($game, $variant) group by all)
select p.game, p.variant, l.setting, p.kind, p.size,
       count(*) as bombs,
       count(*) / any_value(t.hands) as per_hand,
       any_value(t.hands) as hands,
       -- 95% interval of a count per hand: the Poisson score interval, (k + z²/2 ± z √(k + z²/4)) / hands,
       -- above 0 and not symmetric, as a count's is (the normal one, cut at 0, was [0, 2.96] for 1 bomb in 1 hand)
       (count(*) + 1.920729 - 1.959964 * sqrt(count(*) + 0.960364)) / any_value(t.hands) as lo,
       (count(*) + 1.920729 + 1.959964 * sqrt(count(*) + 0.960364)) / any_value(t.hands) as hi
from plays p
join played($game, $variant) l on l.hand_id = p.hand_id and l.game = p.game
join totals t on t.game = l.game and t.variant = l.variant and t.setting = l.setting
where p.bomb
group by all
order by all
