-- Per-hand figures of hands whose deal was played under two or more rule settings of the
-- same variant (duplicate deals, `paipu simulate --compare`): one row per legal hand, the
-- deal as its pairing key, the figures every game has (analysis/compare.py: FIGURES). A
-- game's own figures come from the `sql/compare.sql` of its package, joined by hand. A
-- figure is null where it does not apply to the hand.
with dealt as (
    select l.*, md5(h.deal::varchar) as deal_key, coalesce(l.redeal, false) as redealt
    from legal($game, $variant) l join hands h on h.id = l.hand_id and h.game = l.game
),
shared as (
    select game, variant, deal_key from dealt group by all having count(distinct setting) > 1
)
select d.game, d.variant, d.setting, d.deal_key, d.hand_id,
       case when d.winner is not null and d.first_leader is not null then (d.winner = d.first_leader)::int end
           as first_leader_wins,
       -- a redealt hand (nobody called) has no play: its play figures do not apply (null, not 0, which
       -- pulled the means down where stats and the report, over played hands, do not count it)
       case when not d.redealt then (coalesce(d.bombs, 0) + coalesce(d.rockets, 0))::double end as bombs,
       case when not d.redealt then d.multiplier::double end as multiplier,
       case when not d.redealt then d.n_tricks::double end as tricks,
       case when not d.redealt then d.n_actions::double end as actions
from dealt d join shared s using (game, variant, deal_key)
order by d.game, d.variant, d.deal_key, d.setting
