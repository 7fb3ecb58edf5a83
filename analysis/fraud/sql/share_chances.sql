-- Card sharing (issue #27): every decision where a player a who saw its partner b's cards
-- would act differently, and whether a did. Partners: seats on one side (the side
-- against a declarer, or a team); at a table where each plays for himself any two
-- players. Three signatures (`sig`), each a chance with a hit:
--   block  b's own play is on the table, a could beat it: hit = a passed (never blocks b);
--   leave  an opponent's play is on the table, a could beat it, and so could b, who acts
--          before the trick comes back to the one who played: hit = a passed (left it to b);
--   lead   a led with b holding cards: hit = b could beat the lead and no other seat could
--          (the next decision's `beaters`); leads with which a went out are not chances;
-- and `control`: as leave, but b could not beat: hit = a passed. Not a signature: with
-- a's leave chances it tells a thrown hand (below).
-- `stratum`: the kind of decision, within which the population's rate is the null: the
-- signature, b's seats from a, (leave) the player's seats from a, b's cards left and (lead)
-- the opponents' cards left, bucketed. `c`: the sitting (a match; a hand outside matches).
create or replace temp table share_chances as
with s as (
    select game, hand_id, seat, player, side,
           count(*) over (partition by game, hand_id, side) as side_size,
           count(*) over (partition by game, hand_id) as seats
    from fraud_seats
), t as (
    select game, hand_id, max(side_size) > 1 as teamed from s group by all
), al as (  -- (a's seat, b's seat) of the partners of each hand
    select x.game, x.hand_id, x.seat, x.player as a, y.seat as mate, y.player as b, x.seats as n
    from s x
    join s y on y.game = x.game and y.hand_id = x.hand_id and y.seat <> x.seat
    join t on t.game = x.game and t.hand_id = x.hand_id
    where (t.teamed and x.side = y.side and x.side_size > 1) or not t.teamed
), d as (
    select game, variant, hand_id, idx, seat, act, lead, can_beat, target_seat, target_player, beaters, seats_left,
           lead(beaters) over w as next_beaters, lead(seats_left) over w as next_left, lead(lead) over w as next_lead
    from decisions
    window w as (partition by game, hand_id order by idx)
), c as (
    select d.game, d.variant, d.hand_id, d.idx, al.a, al.b, d.target_player as t,
           case when not d.lead and d.target_seat = al.mate then 'block'
                when not d.lead and (d.beaters >> al.mate) & 1 = 1 then 'leave'
                when not d.lead then 'control' else 'lead' end as sig,
           (al.mate - d.seat + al.n) % al.n as place,
           (d.target_seat - d.seat + al.n) % al.n as played_from,
           d.seats_left[al.mate + 1] as b_left,
           list_sum(d.seats_left) - d.seats_left[d.seat + 1] - d.seats_left[al.mate + 1] as others_left,
           case when d.lead then d.next_beaters = (1 << al.mate)::smallint else d.act = 'pass' end as hit
    from d
    join al on al.game = d.game and al.hand_id = d.hand_id and al.seat = d.seat
    where d.seats_left[al.mate + 1] > 0
      and (  (not d.lead and d.can_beat and d.target_seat = al.mate)
          or (not d.lead and d.can_beat and d.target_seat <> al.mate
              and (al.mate - d.seat + al.n) % al.n < (d.target_seat - d.seat + al.n) % al.n)
          or (d.lead and d.act = 'play' and d.next_lead = false and d.next_left[d.seat + 1] > 0))
), x as (  -- a's chances to beat an opponent's play in the hand, and how many it passed
    select c.*, count(*) filter (where c.sig in ('leave', 'control')) over hp as n_opp,
           count(*) filter (where c.sig in ('leave', 'control') and c.hit) over hp as k_opp
    from c
    window hp as (partition by c.game, c.hand_id, c.a, c.b)
)
select c.game, c.variant, coalesce(h.match_id, c.hand_id) as c, c.hand_id, c.idx, c.a, c.b, c.sig, c.hit,
       c.sig || ' ' || c.place || (case when c.sig = 'leave' then '/' || c.played_from else '' end)
           || ' b' || (case when c.b_left <= 2 then c.b_left when c.b_left <= 5 then 5 when c.b_left <= 10 then 10 else 99 end)
           || (case when c.sig = 'lead' then ' o' || (case when c.others_left <= 2 then c.others_left
                   when c.others_left <= 5 then 5 when c.others_left <= 10 then 10 else 99 end) else '' end) as stratum
from x as c
join hands h on h.id = c.hand_id and h.game = c.game
-- a thrown hand: a passed at every one of its (at least three) chances to beat an
-- opponent's play, whether its partner could take the trick or not; such passes say
-- nothing of the partner's cards (a dumper passes on every play of the hands it throws),
-- so neither its leave nor its control chances of that hand count, for anyone (the nulls too)
where not (c.sig in ('leave', 'control') and c.n_opp >= 3 and c.k_opp = c.n_opp)
-- a pass on the play of an opponent a is found sparing (its soft-play test at p <= SPARING_P,
-- `spared_pairs`: a colluder spares its friend whoever its partner is) is no chance either
  and not (c.sig in ('leave', 'control')
           and exists (select 1 from spared_pairs sp where sp.game = c.game and sp.a = c.a and sp.t = c.t))
