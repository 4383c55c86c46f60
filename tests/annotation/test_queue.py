from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation import queue
from annotation.models import Assignment, Campaign, Dimension, Response, Rubric, Transcript
from annotation.queue import Answer, ItemUnavailable, next_for, shuffle_multipliers
from tests.annotation.conftest import pairwise, person

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(db: None) -> list[User]:
    return [person(f"a{n}", "annotators") for n in range(5)]


def manner(campaign: Campaign) -> Dimension:
    return campaign.rubric.dimensions.get(key="manner")


def finish(user: User, campaign: Campaign, value: int = 3, time_ms: int = 1000) -> Transcript:
    assignment = next_for(user, campaign)
    assert assignment is not None
    queue.submit(user, assignment.transcript, [Answer(manner(campaign), value)], time_ms)
    return assignment.transcript


def ids(transcripts: list[Transcript]) -> list[str]:
    return [t.external_id for t in transcripts]


class TestNextFor:
    def test_an_annotator_gets_every_item_once_then_nothing(
        self, campaign: Campaign, people: list[User]
    ) -> None:
        done = [finish(people[0], campaign) for _ in range(3)]
        assert ids(done) == ["t001", "t002", "t003"]
        assert next_for(people[0], campaign) is None

    def test_the_item_nearest_to_completion_comes_first(
        self, campaign: Campaign, people: list[User]
    ) -> None:
        first, second = finish(people[0], campaign), finish(people[0], campaign)
        assert ids([first, second]) == ["t001", "t002"]
        # t001 and t002 have one annotation each; of those, import order decides.
        assert ids([finish(people[1], campaign)]) == ["t001"]
        assert ids([finish(people[2], campaign)]) == ["t001"]
        # t001 is complete (R = 3); t002 is nearer completion than the untouched t003.
        assert ids([finish(people[3], campaign)]) == ["t002"]

    def test_every_item_ends_with_exactly_r_annotations(
        self, campaign_factory: Callable[..., Campaign], people: list[User]
    ) -> None:
        campaign = campaign_factory(items=4, annotations_per_item=2)
        while True:
            handed = [next_for(someone, campaign) for someone in people]
            live = [(p, a) for p, a in zip(people, handed, strict=True) if a is not None]
            if not live:
                break
            for annotator, assignment in live:
                queue.submit(annotator, assignment.transcript, [Answer(manner(campaign), 4)], 10)
        counts = {
            t.external_id: t.assignments.filter(status="submitted").count()
            for t in campaign.transcripts.all()
        }
        assert counts == {"t001": 2, "t002": 2, "t003": 2, "t004": 2}
        assert set(campaign.transcripts.values_list("active_count", flat=True)) == {2}

    def test_held_items_count_toward_r(
        self, campaign_factory: Callable[..., Campaign], people: list[User]
    ) -> None:
        campaign = campaign_factory(items=2, annotations_per_item=1)
        held = next_for(people[0], campaign)
        assert held is not None and held.transcript.external_id == "t001"
        other = next_for(people[1], campaign)
        assert other is not None and other.transcript.external_id == "t002"
        assert next_for(people[2], campaign) is None

    def test_a_held_item_comes_back_to_its_holder(
        self, campaign: Campaign, people: list[User]
    ) -> None:
        first = next_for(people[0], campaign)
        again = next_for(people[0], campaign)
        assert first is not None and again is not None and again.pk == first.pk
        assert Assignment.objects.count() == 1

    def test_a_hold_is_reclaimed_after_the_campaigns_hold_time(
        self, campaign_factory: Callable[..., Campaign], people: list[User]
    ) -> None:
        campaign = campaign_factory(items=1, annotations_per_item=1, hold_minutes=10)
        start = timezone.now()
        held = next_for(people[0], campaign, now=start)
        assert held is not None
        assert next_for(people[1], campaign, now=start + timedelta(minutes=9)) is None
        taken = next_for(people[1], campaign, now=start + timedelta(minutes=11))
        assert taken is not None and taken.transcript_id == held.transcript_id
        held.refresh_from_db()
        assert held.status == Assignment.Status.EXPIRED
        assert Transcript.objects.get().active_count == 1

    def test_a_closed_campaign_hands_out_nothing(
        self, campaign: Campaign, people: list[User]
    ) -> None:
        campaign.status = Campaign.Status.CLOSED
        campaign.save()
        assert next_for(people[0], campaign) is None

    def test_an_import_order_campaign_breaks_ties_by_position(
        self, campaign_factory: Callable[..., Campaign], people: list[User]
    ) -> None:
        campaign = campaign_factory(items=3, item_order=Campaign.ItemOrder.IMPORT)
        for external_id, key in (("t001", 30), ("t002", 10), ("t003", 20)):
            Transcript.objects.filter(external_id=external_id).update(shuffle_key=key)
        assert ids([finish(people[0], campaign) for _ in range(3)]) == ["t001", "t002", "t003"]

    def test_a_new_campaign_shuffles_by_default(self, rubric: Rubric) -> None:
        assert Campaign.objects.create(name="fresh", rubric=rubric).item_order == "shuffled"

    def test_each_annotator_gets_their_own_seeded_shuffle(
        self, campaign_factory: Callable[..., Campaign], people: list[User]
    ) -> None:
        campaign = campaign_factory(
            items=12, annotations_per_item=1, item_order=Campaign.ItemOrder.SHUFFLED
        )
        for n, transcript in enumerate(Transcript.objects.order_by("position")):
            Transcript.objects.filter(pk=transcript.pk).update(shuffle_key=(n * 7919) % 1009)
        keys = dict(Transcript.objects.values_list("external_id", "shuffle_key"))

        def own_order(user: User) -> list[str]:
            a, b = shuffle_multipliers(campaign, user)
            assert shuffle_multipliers(campaign, user) == (a, b)  # seeded, not drawn
            return sorted(keys, key=lambda external_id: (a * keys[external_id] + b) % (2**31 - 1))

        orders = {tuple(own_order(user)) for user in people}
        assert len(orders) == len(people)
        import_order = sorted(keys)
        assert tuple(import_order) not in orders
        served = ids([finish(people[0], campaign) for _ in range(12)])
        assert served == own_order(people[0])
        assert served != import_order

    def test_pairwise_sides_are_drawn_at_random_and_kept(
        self, campaign_factory: Callable[..., Campaign]
    ) -> None:
        campaign = campaign_factory(rows=[pairwise(f"p{n}") for n in range(12)])
        chance = random.Random(7)
        annotator = person("pairs", "annotators")
        sides = []
        for _ in range(12):
            assignment = next_for(annotator, campaign, chance=chance)
            assert assignment is not None
            sides.append(assignment.swapped)
            queue.skip(annotator, assignment.transcript)
        assert True in sides and False in sides
        stored = list(Assignment.objects.order_by("pk").values_list("swapped", flat=True))
        assert stored == sides

    def test_its_query_count_does_not_grow_with_the_campaign(
        self, campaign_factory: Callable[..., Campaign], people: list[User]
    ) -> None:
        small = campaign_factory(name="small", items=2)
        large = campaign_factory(name="large", items=40)
        for campaign in (small, large):
            finish(people[1], campaign)
        counts = []
        for campaign in (small, large):
            with CaptureQueriesContext(connection) as captured:
                next_for(people[0], campaign)
            counts.append(len(captured))
        assert counts[0] == counts[1] <= 8


class TestSkip:
    def test_skipping_releases_the_hold_and_never_offers_the_item_again(
        self, campaign_factory: Callable[..., Campaign], people: list[User]
    ) -> None:
        campaign = campaign_factory(items=2, annotations_per_item=1)
        held = next_for(people[0], campaign)
        assert held is not None and held.transcript.external_id == "t001"
        queue.skip(people[0], held.transcript)
        assert Transcript.objects.get(external_id="t001").active_count == 0
        after = next_for(people[0], campaign)
        assert after is not None and after.transcript.external_id == "t002"
        queue.skip(people[0], after.transcript)
        assert next_for(people[0], campaign) is None
        other = next_for(people[1], campaign)
        assert other is not None and other.transcript.external_id == "t001"

    def test_a_skip_never_counts_toward_r(
        self, campaign_factory: Callable[..., Campaign], people: list[User]
    ) -> None:
        campaign = campaign_factory(items=1, annotations_per_item=2)
        for skipper in people[:3]:
            assignment = next_for(skipper, campaign)
            assert assignment is not None
            queue.skip(skipper, assignment.transcript)
        for finisher in people[3:]:
            finish(finisher, campaign)
        statuses = sorted(Assignment.objects.values_list("status", flat=True))
        assert statuses == ["skipped"] * 3 + ["submitted"] * 2

    def test_a_submitted_item_cannot_be_skipped(
        self, campaign: Campaign, people: list[User]
    ) -> None:
        transcript = finish(people[0], campaign)
        with pytest.raises(ItemUnavailable, match="already submitted"):
            queue.skip(people[0], transcript)


class TestSubmit:
    def test_it_stores_one_response_per_dimension_with_the_time(
        self, campaign: Campaign, people: list[User]
    ) -> None:
        assignment = next_for(people[0], campaign)
        assert assignment is not None
        overall = campaign.rubric.dimensions.get(key="overall")
        queue.submit(
            people[0],
            assignment.transcript,
            [Answer(manner(campaign), 4), Answer(overall, 2, "too short")],
            7_500,
        )
        assignment.refresh_from_db()
        assert (assignment.status, assignment.time_on_task_ms) == ("submitted", 7_500)
        assert assignment.submitted_at is not None
        rows = set(
            Response.objects.values_list("dimension__key", "value", "rationale", "time_on_task_ms")
        )
        assert rows == {("manner", 4, "", 7_500), ("overall", 2, "too short", 7_500)}
        assert Response.objects.filter(transcript=assignment.transcript).count() == 2

    def test_revising_replaces_the_answers_and_adds_the_time(
        self, campaign: Campaign, people: list[User]
    ) -> None:
        transcript = finish(people[0], campaign, value=2, time_ms=4_000)
        created = Response.objects.get().created_at
        queue.submit(people[0], transcript, [Answer(manner(campaign), 5)], 1_000)
        response = Response.objects.get()
        assert (response.value, response.time_on_task_ms) == (5, 5_000)
        assert response.created_at == created and response.updated_at > created
        assert Transcript.objects.get(pk=transcript.pk).active_count == 1

    def test_the_time_on_task_is_capped(self, campaign: Campaign, people: list[User]) -> None:
        finish(people[0], campaign, time_ms=10 * queue.MAX_TIME_ON_TASK_MS)
        assert Assignment.objects.get().time_on_task_ms == queue.MAX_TIME_ON_TASK_MS

    def test_an_expired_hold_can_be_submitted_while_a_place_is_free(
        self, campaign_factory: Callable[..., Campaign], people: list[User]
    ) -> None:
        campaign = campaign_factory(items=1, annotations_per_item=2, hold_minutes=5)
        held = next_for(people[0], campaign, now=timezone.now() - timedelta(minutes=6))
        assert held is not None
        # The next request reclaims the expired hold and takes one of the two places.
        assert next_for(people[1], campaign) is not None
        held.refresh_from_db()
        assert held.status == Assignment.Status.EXPIRED
        queue.submit(people[0], held.transcript, [Answer(manner(campaign), 3)], 100)
        held.refresh_from_db()
        assert held.status == Assignment.Status.SUBMITTED
        assert Transcript.objects.get().active_count == 2

    def test_an_expired_hold_cannot_be_submitted_once_others_filled_the_item(
        self, campaign_factory: Callable[..., Campaign], people: list[User]
    ) -> None:
        campaign = campaign_factory(items=1, annotations_per_item=1, hold_minutes=5)
        held = next_for(people[0], campaign, now=timezone.now() - timedelta(minutes=6))
        assert held is not None
        finish(people[1], campaign)
        with pytest.raises(ItemUnavailable, match="others have completed it"):
            queue.submit(people[0], held.transcript, [Answer(manner(campaign), 3)], 100)
        assert Assignment.objects.filter(status="submitted").count() == 1

    def test_an_item_never_given_or_skipped_cannot_be_submitted(
        self, campaign: Campaign, people: list[User]
    ) -> None:
        transcript = campaign.transcripts.get(external_id="t001")
        with pytest.raises(ItemUnavailable, match="not given to you"):
            queue.submit(people[0], transcript, [Answer(manner(campaign), 3)], 100)
        assignment = next_for(people[0], campaign)
        assert assignment is not None
        queue.skip(people[0], assignment.transcript)
        with pytest.raises(ItemUnavailable, match="skipped"):
            queue.submit(people[0], assignment.transcript, [Answer(manner(campaign), 3)], 100)

    def test_a_closed_campaign_refuses_revisions(
        self, campaign: Campaign, people: list[User]
    ) -> None:
        transcript = finish(people[0], campaign)
        campaign.status = Campaign.Status.CLOSED
        campaign.save()
        transcript.refresh_from_db()
        with pytest.raises(ItemUnavailable, match="closed"):
            queue.submit(people[0], transcript, [Answer(manner(campaign), 1)], 100)
        assert Response.objects.get().value == 3
