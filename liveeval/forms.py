from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils.text import Truncator
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from evalsite import roles
from liveeval import campaigns
from liveeval.card_languages import (
    add_card_language_fields,
    save_card_languages,
)
from liveeval.models import DIALOGUE_LANGUAGES, Campaign, DialogueSystem, Rating, TaskCard

SATISFACTION_CHOICES = [
    (2, _("2 · Very satisfied")),
    (1, _("1 · Satisfied")),
    (0, _("0 · Neutral")),
    (-1, _("−1 · Dissatisfied")),
    (-2, _("−2 · Very dissatisfied")),
]
FLUENCY_CHOICES = [
    (1, _("1 · Fluent and natural")),
    (0, _("0 · Understandable, a little awkward")),
    (-1, _("−1 · Not fluent")),
]
GUIDANCE_CHOICES = [
    (1, _("1 · Guided me when my request could not be met")),
    (0, _("0 · No useful guidance")),
]
COMPLETED_CHOICES = [(True, _("Yes, the task was completed")), (False, _("No"))]


class IsoDateInput(forms.DateInput):
    """A browser date picker, whose value must be ISO (YYYY-MM-DD) whatever the locale says."""

    input_type = "date"

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs, format="%Y-%m-%d")


class RatingForm(forms.ModelForm[Rating]):
    completed = forms.TypedChoiceField(
        label=_("Task completed?"),
        choices=COMPLETED_CHOICES,
        coerce=lambda value: value in (True, "True", "true", "1"),
        widget=forms.RadioSelect,
        help_text=_("Did the system book what the task card asked for?"),
    )
    satisfaction = forms.TypedChoiceField(
        label=_("Satisfaction"),
        choices=SATISFACTION_CHOICES,
        coerce=int,
        widget=forms.RadioSelect,
        help_text=_("How satisfied are you with this conversation as a whole?"),
    )
    fluency = forms.TypedChoiceField(
        label=_("Fluency"),
        choices=FLUENCY_CHOICES,
        coerce=int,
        widget=forms.RadioSelect,
        help_text=_("How fluent and natural were the system's replies?"),
    )
    guidance = forms.TypedChoiceField(
        label=_("Guidance"),
        choices=GUIDANCE_CHOICES,
        coerce=int,
        widget=forms.RadioSelect,
        help_text=_("When something could not be done, did the system suggest what could?"),
    )

    class Meta:
        model = Rating
        fields = ["completed", "satisfaction", "fluency", "guidance", "comment"]
        widgets = {"comment": forms.Textarea(attrs={"rows": 3})}
        labels = {"comment": _("Comment (optional)")}


class TaskCardChoiceField(forms.ModelMultipleChoiceField):
    """Lists each task card by its title and the start of its description, not its key alone,
    with the language a bilingual campaign holds its dialogues in."""

    def label_from_instance(self, obj: Any) -> str:
        lang = get_language() or "en"
        preview = Truncator(obj.description(lang)).chars(90)
        return f"{obj.title(lang)} — {preview} ({obj.key}) · {obj.get_lang_display()}"


class SystemChoiceField(forms.ModelMultipleChoiceField):
    """Lists each system by name, saying which are disabled: a campaign may still hold them."""

    def label_from_instance(self, obj: Any) -> str:
        if obj.enabled:
            return str(obj)
        return gettext("%(system)s (disabled)") % {"system": obj}


class CampaignForm(forms.ModelForm[Campaign]):
    class Meta:
        model = Campaign
        fields = [
            "name",
            "systems",
            "tasks",
            "judges",
            "judgements_per_pair",
            "max_turns",
            "today",
            "lang",
            "reply_timeout",
            "seed",
            "late_rating",
        ]
        widgets = {
            "systems": forms.CheckboxSelectMultiple,
            "tasks": forms.CheckboxSelectMultiple,
            "judges": forms.CheckboxSelectMultiple,
            "today": IsoDateInput(),
        }
        field_classes = {"tasks": TaskCardChoiceField, "systems": SystemChoiceField}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A disabled system takes no new campaign, but one that already holds it stays savable.
        held = Q(campaigns=self.instance) if self.instance.pk else Q(pk__in=[])
        choices: dict[str, Any] = {
            "systems": DialogueSystem.objects.filter(Q(enabled=True) | held).distinct(),
            "tasks": TaskCard.objects.all(),
            "judges": get_user_model()
            .objects.filter(groups__name=roles.JUDGES)
            .order_by("username"),
        }
        for name, queryset in choices.items():
            field = self.fields[name]
            assert isinstance(field, forms.ModelMultipleChoiceField)
            field.queryset = queryset
        self.fields["judges"].required = False
        add_card_language_fields(self, choices["tasks"])
        if self.instance.pk and self.instance.status != Campaign.Status.DRAFT:
            # An open campaign's design is frozen; only its judges may change.
            for name in ("systems", "tasks", "judgements_per_pair", "max_turns", "today", "lang"):
                self.fields[name].disabled = True

    def save_campaign(self, created_by: Any) -> Campaign:
        """Store a valid form's campaign; a new one is credited to ``created_by``.

        In an open campaign only the name, the reply timeout and the judges change, and
        judges join or leave through re-planning, so that every pair keeps its K judges.
        """
        campaign = self.instance
        if campaign.pk and campaign.status == Campaign.Status.OPEN:
            chosen = set(self.cleaned_data["judges"])
            current = set(campaign.judges.all())
            for judge in sorted(chosen - current, key=lambda u: u.pk):
                campaigns.add_judge(campaign, judge)
            for judge in sorted(current - chosen, key=lambda u: u.pk):
                campaigns.remove_judge(campaign, judge)
            campaign.name = self.cleaned_data["name"]
            campaign.reply_timeout = self.cleaned_data["reply_timeout"]
            campaign.save(update_fields=["name", "reply_timeout"])
            return campaign
        campaign = self.save(commit=False)
        if campaign.created_by_id is None:
            campaign.created_by_id = created_by.pk
        campaign.save()
        self.save_m2m()
        save_card_languages(self, campaign)
        return campaign

    def clean_judgements_per_pair(self) -> int:
        k: int = self.cleaned_data["judgements_per_pair"]
        if k < 1:
            raise forms.ValidationError(
                _("Each (task, system) pair needs at least one judge: K must be 1 or more."),
                code="k_positive",
            )
        return k

    def clean_max_turns(self) -> int:
        turns: int = self.cleaned_data["max_turns"]
        if turns < 2:
            raise forms.ValidationError(
                _("A dialogue needs at least two turns: the user's and the system's."),
                code="max_turns_at_least_two",
            )
        return turns

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        tasks = data.get("tasks")
        max_turns = data.get("max_turns")
        if tasks is not None and max_turns is not None:
            too_low = [task for task in tasks if task.turn_penalty < max_turns]
            if too_low:
                lowest = min(task.turn_penalty for task in too_low)
                self.add_error(
                    "max_turns",
                    forms.ValidationError(
                        _(
                            "The turn limit must not exceed any task's turn penalty; "
                            "the lowest penalty among the chosen tasks is %(lowest)s."
                        ),
                        code="max_turns_above_penalty",
                        params={"lowest": lowest},
                    ),
                )
        return data


class JudgeChoiceForm(forms.Form):
    judge = forms.ModelChoiceField(queryset=get_user_model().objects.none(), label=_("Judge"))

    def __init__(self, *args: Any, queryset: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["judge"]
        if queryset is not None and isinstance(field, forms.ModelChoiceField):
            field.queryset = queryset


class SandboxForm(forms.Form):
    system = forms.ModelChoiceField(queryset=DialogueSystem.objects.all(), label=_("System"))
    lang = forms.ChoiceField(choices=DIALOGUE_LANGUAGES, label=_("Dialogue language"))
    today = forms.DateField(label=_("Dialogue date"), widget=IsoDateInput())


class TaskLanguagesForm(forms.Form):
    """In a bilingual draft campaign: the language each task card's dialogues are held in."""

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.tasks = list(campaign.tasks.order_by("key"))
        lang = get_language() or "en"
        for task in self.tasks:
            self.fields[self.field_name(task)] = forms.ChoiceField(
                label=f"{task.title(lang)} ({task.key})",
                choices=DIALOGUE_LANGUAGES,
                initial=campaign.dialogue_lang(task),
            )

    @staticmethod
    def field_name(task: TaskCard) -> str:
        return f"lang_{task.pk}"

    def chosen(self) -> dict[TaskCard, str]:
        return {task: self.cleaned_data[self.field_name(task)] for task in self.tasks}
