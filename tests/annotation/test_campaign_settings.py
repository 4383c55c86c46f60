"""An annotation campaign's settings pages: a new campaign, R, instructions, team, gold
answers, copies and archiving."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation import campaign_lifecycle, queue
from annotation.instructions import format_instructions
from annotation.models import Assignment, Campaign, Rubric, Transcript
from evalsite import archive, roles
from tests.annotation.conftest import person
from tests.conftest import logged_in


def english(client: Client) -> Client:
    client.cookies["django_language"] = "en"
    return client


def settings_data(campaign: Campaign | None, rubric: Rubric, **fields: object) -> dict[str, object]:
    data: dict[str, object] = {
        "name": campaign.name if campaign else "Fresh study",
        "rubric": rubric.pk,
        "annotations_per_item": 3,
        "instructions": "",
        "item_order": "import",
        "hold_minutes": 30,
        "alt_test_epsilon": 0.15,
    }
    data.update(fields)
    return data


# Instructions are formatted safely.


def test_instructions_keep_paragraphs_and_line_breaks_and_escape_html() -> None:
    html = format_instructions("Read it all.\nThen answer.\n\n<script>alert(1)</script> <b>x</b>")
    assert html == (
        "<p>Read it all.<br>Then answer.</p>\n"
        "<p>&lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;x&lt;/b&gt;</p>"
    )


def test_instructions_link_http_addresses_only() -> None:
    html = format_instructions(
        "See https://example.org/guide?a=1&b=2. Or [the rubric](http://example.org/r) "
        "but not [this](javascript:alert(1)) nor data:text/html,x"
    )
    assert '<a href="https://example.org/guide?a=1&amp;b=2"' in html
    assert ">https://example.org/guide?a=1&amp;b=2</a>. Or" in html
    assert (
        '<a href="http://example.org/r" rel="noopener noreferrer" target="_blank">the rubric</a>'
        in html
    )
    assert "javascript:" not in html.split("[this]")[0] and 'href="javascript' not in html
    assert "[this](javascript:alert(1))" in html and 'href="data' not in html


def test_a_quote_cannot_break_out_of_a_link() -> None:
    html = format_instructions('https://example.org/"onmouseover="alert(1)')
    assert 'href="https://example.org/"' in html
    assert "onmouseover=&quot;" in html and 'onmouseover="' not in html


@pytest.mark.django_db
def test_annotators_read_the_formatted_instructions(
    campaign_factory: Callable[..., Campaign], annotator: User
) -> None:
    campaign = campaign_factory(items=1, instructions="Be fair.\n\n<i>no</i> https://example.org")
    page = logged_in(annotator).get(reverse("annotation:work", args=[campaign.pk]), follow=True)
    text = page.content.decode()
    assert "<p>Be fair.</p>" in text and "&lt;i&gt;no&lt;/i&gt;" in text
    assert '<a href="https://example.org"' in text


# A new campaign, and its settings.


@pytest.mark.django_db
def test_a_new_campaign_is_created_empty_and_leads_to_its_import(
    coordinator_client: Client, rubric: Rubric, annotator: User
) -> None:
    data = settings_data(None, rubric, annotations_per_item=2, annotators=[annotator.pk])
    response = english(coordinator_client).post(reverse("annotation:campaign_new"), data)
    campaign = Campaign.objects.get(name="Fresh study")
    assert response.status_code == 302
    assert (
        response["Location"]
        == reverse("annotation:import_transcripts") + f"?campaign={campaign.pk}"
    )
    assert campaign.rubric == rubric and campaign.annotations_per_item == 2
    assert list(campaign.annotators.all()) == [annotator]
    assert not campaign.transcripts.exists()
    page = coordinator_client.get(response["Location"]).content.decode()
    assert f'<option value="{campaign.pk}" selected>' in page


@pytest.mark.django_db
def test_a_new_site_offers_the_concept_rubric_to_its_first_campaign(
    coordinator_client: Client,
) -> None:
    assert not Rubric.objects.exists()
    page = english(coordinator_client).get(reverse("annotation:campaign_new")).content.decode()
    rubric = Rubric.objects.get(key="concept")
    assert f'<option value="{rubric.pk}" selected>' in page
    data = settings_data(None, rubric)
    assert coordinator_client.post(reverse("annotation:campaign_new"), data).status_code == 302
    assert Campaign.objects.get(name="Fresh study").rubric == rubric


@pytest.mark.django_db
def test_the_settings_page_saves_every_setting(
    coordinator_client: Client, campaign: Campaign, rubric: Rubric, annotator: User
) -> None:
    data = settings_data(
        campaign,
        rubric,
        annotations_per_item=5,
        instructions="New words",
        item_order="shuffled",
        annotators=[annotator.pk],
        show_feelings="on",
        alt_test_epsilon=0.1,
    )
    response = coordinator_client.post(reverse("annotation:settings", args=[campaign.pk]), data)
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.annotations_per_item == 5 and campaign.instructions == "New words"
    assert campaign.item_order == "shuffled" and campaign.show_feelings is True
    assert campaign.alt_test_epsilon == 0.1
    assert list(campaign.annotators.all()) == [annotator]
    assert not campaign.open_to(person("other", roles.ANNOTATORS))


@pytest.mark.django_db
def test_r_cannot_drop_below_the_annotations_held_or_submitted(
    coordinator_client: Client, campaign: Campaign, rubric: Rubric
) -> None:
    for name in ("a1", "a2"):
        queue.next_for(person(name, roles.ANNOTATORS), campaign)
    assert campaign_lifecycle.lowest_r(campaign) == 2
    url = reverse("annotation:settings", args=[campaign.pk])
    response = english(coordinator_client).post(
        url, settings_data(campaign, rubric, annotations_per_item=1)
    )
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert list(errors) == ["annotations_per_item"]
    assert "R cannot be lower than 2" in errors["annotations_per_item"][0]
    campaign.refresh_from_db()
    assert campaign.annotations_per_item == 3
    response = coordinator_client.post(url, settings_data(campaign, rubric, annotations_per_item=2))
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.annotations_per_item == 2


@pytest.mark.django_db
def test_an_epsilon_of_one_is_a_field_error(
    coordinator_client: Client, campaign: Campaign, rubric: Rubric
) -> None:
    url = reverse("annotation:settings", args=[campaign.pk])
    response = english(coordinator_client).post(
        url, settings_data(campaign, rubric, alt_test_epsilon=1)
    )
    assert response.status_code == 400
    assert list(response.context["form"].errors) == ["alt_test_epsilon"]
    assert "Constraint" not in response.content.decode()


# Gold items.


@pytest.mark.django_db
def test_a_transcript_becomes_gold_with_answers_on_its_scales(
    coordinator_client: Client, campaign: Campaign
) -> None:
    transcript = campaign.transcripts.order_by("position").first()
    assert transcript is not None
    dimension = next(d for d in campaign.rubric.dimensions.all() if d.applies_to(transcript))
    url = reverse("annotation:gold_item", args=[campaign.pk, transcript.pk])
    assert coordinator_client.get(url).status_code == 200
    response = coordinator_client.post(
        url, {"is_gold": "on", f"gold_{dimension.key}": dimension.scale_max}
    )
    assert response.status_code == 302
    transcript.refresh_from_db()
    assert transcript.gold == {dimension.key: dimension.scale_max}
    listing = english(coordinator_client).get(reverse("annotation:gold_items", args=[campaign.pk]))
    assert f"{dimension.name_en} = {dimension.scale_max}" in listing.content.decode()


@pytest.mark.django_db
def test_a_gold_answer_off_the_scale_or_missing_is_refused(
    coordinator_client: Client, campaign: Campaign
) -> None:
    transcript = campaign.transcripts.order_by("position").first()
    assert transcript is not None
    dimension = next(d for d in campaign.rubric.dimensions.all() if d.applies_to(transcript))
    url = reverse("annotation:gold_item", args=[campaign.pk, transcript.pk])
    english(coordinator_client)
    off = coordinator_client.post(
        url, {"is_gold": "on", f"gold_{dimension.key}": dimension.scale_max + 1}
    )
    assert off.status_code == 400
    assert list(off.context["form"].errors) == [f"gold_{dimension.key}"]
    empty = coordinator_client.post(url, {"is_gold": "on"})
    assert empty.status_code == 400
    assert "at least one expected answer" in empty.content.decode()
    transcript.refresh_from_db()
    assert transcript.gold == {}


@pytest.mark.django_db
def test_unticking_gold_clears_the_expected_answers(
    coordinator_client: Client, campaign: Campaign
) -> None:
    transcript = campaign.transcripts.order_by("position").first()
    assert transcript is not None
    key = next(d.key for d in campaign.rubric.dimensions.all() if d.applies_to(transcript))
    Transcript.objects.filter(pk=transcript.pk).update(gold={key: 1})
    url = reverse("annotation:gold_item", args=[campaign.pk, transcript.pk])
    assert coordinator_client.post(url, {f"gold_{key}": 1}).status_code == 302
    transcript.refresh_from_db()
    assert transcript.gold == {}


# Copies and archiving.


@pytest.mark.django_db
def test_a_copy_takes_the_settings_and_team_but_no_transcripts(
    coordinator_client: Client, campaign_factory: Callable[..., Campaign], annotator: User
) -> None:
    original = campaign_factory(
        items=2,
        instructions="Careful",
        annotations_per_item=2,
        show_feelings=True,
        alt_test_epsilon=0.2,
    )
    original.annotators.add(annotator)
    url = reverse("annotation:clone", args=[original.pk])
    assert 'value="Test campaign (copy)"' in english(coordinator_client).get(url).content.decode()
    response = coordinator_client.post(url, {"name": "Second round"})
    copy = Campaign.objects.get(name="Second round")
    assert response.status_code == 302
    assert (copy.rubric, copy.instructions, copy.annotations_per_item) == (
        original.rubric,
        "Careful",
        2,
    )
    assert copy.show_feelings and copy.alt_test_epsilon == 0.2
    assert list(copy.annotators.all()) == [annotator]
    assert not copy.transcripts.exists() and original.transcripts.count() == 2
    taken = english(coordinator_client).post(url, {"name": "Second round"})
    assert taken.status_code == 400 and "exists" in taken.content.decode()


@pytest.mark.django_db
def test_an_archived_campaign_is_hidden_refuses_work_and_can_be_restored(
    coordinator_client: Client, campaign: Campaign, annotator: User
) -> None:
    annotator_client = english(logged_in(annotator))
    assert campaign.name in annotator_client.get(reverse("home")).content.decode()
    assert (
        coordinator_client.post(reverse("annotation:archive", args=[campaign.pk])).status_code
        == 302
    )
    campaign.refresh_from_db()
    assert campaign.is_archived
    assert campaign.name not in annotator_client.get(reverse("home")).content.decode()
    refused = annotator_client.get(reverse("annotation:work", args=[campaign.pk]))
    assert refused.status_code == 403
    assert "This campaign is archived" in refused.content.decode()
    assert not Assignment.objects.filter(campaign=campaign).exists()
    dashboard = coordinator_client.get(reverse("annotation:dashboard", args=[campaign.pk]))
    assert dashboard.status_code == 200 and 'id="archived-notice"' in dashboard.content.decode()
    report = coordinator_client.get(reverse("annotation_report:page", args=[campaign.pk]))
    assert report.status_code == 200
    assert (
        coordinator_client.post(reverse("annotation:restore", args=[campaign.pk])).status_code
        == 302
    )
    campaign.refresh_from_db()
    assert not campaign.is_archived
    assert annotator_client.get(reverse("annotation:work", args=[campaign.pk])).status_code == 302


@pytest.mark.django_db
def test_an_archived_campaign_is_offered_to_no_invitation(campaign: Campaign) -> None:
    from annotation import teams

    assert (campaign.pk, campaign.name) in teams.open_campaigns()
    archive.archive(campaign)
    assert (campaign.pk, campaign.name) not in teams.open_campaigns()


@pytest.mark.django_db
def test_a_new_campaign_proposes_a_loaded_rubric(
    coordinator_client: Client, rubric: Rubric
) -> None:
    form = coordinator_client.get(reverse("annotation:campaign_new")).context["form"]
    assert form["rubric"].value() == rubric.pk


@pytest.mark.django_db
def test_narrowing_the_team_gives_back_at_once_what_those_left_out_held(
    coordinator_client: Client, campaign: Campaign, rubric: Rubric
) -> None:
    kept, dropped = person("kept", roles.ANNOTATORS), person("dropped", roles.ANNOTATORS)
    kept_item = queue.next_for(kept, campaign)
    dropped_item = queue.next_for(dropped, campaign)
    assert kept_item is not None and dropped_item is not None
    taken = Transcript.objects.get(pk=dropped_item.transcript_id).active_count
    url = reverse("annotation:settings", args=[campaign.pk])
    response = coordinator_client.post(url, settings_data(campaign, rubric, annotators=[kept.pk]))
    assert response.status_code == 302
    dropped_item.refresh_from_db()
    kept_item.refresh_from_db()
    assert dropped_item.status == Assignment.Status.EXPIRED
    assert kept_item.status == Assignment.Status.HELD
    # The place the dropped annotator held is free again for the team.
    assert Transcript.objects.get(pk=dropped_item.transcript_id).active_count == taken - 1
    # A team of nobody is open to all: saving it releases nothing.
    response = coordinator_client.post(url, settings_data(campaign, rubric))
    kept_item.refresh_from_db()
    assert kept_item.status == Assignment.Status.HELD
